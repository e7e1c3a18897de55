import { describe, expect, it } from 'vitest';
import { type RecordInList, recordIn } from '../../src/app/follow-up.ts';
import { CLOCK_SKEW_MS, matchRecords } from '../../src/app/record-matching.ts';
import type { ListUnfinished } from '../../src/domain/list-findings.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import { nextPageOf } from '../../src/payments/response-shape.ts';
import { followLookErrorText } from '../../src/slack/text/list-findings.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';

const APPROVED_AT = '2025-03-01T12:00:00.000Z';
const AFTER = '2025-03-01T12:00:05.000Z';
const PAYOUT = { ...(EXAMPLE_CALLS.createPayout.body as Record<string, string>), amount: '33.30' };

function requestFor(operationId: WriteOperationId, fields: Record<string, string>) {
  return {
    operationId,
    path: {},
    body: JSON.stringify(fields),
    approvals: [{ userId: 'U0BOB', at: APPROVED_AT }],
    createdAt: APPROVED_AT,
  };
}

/** `records` as a whole list read, no id of them another request's unless `taken`. */
function match(
  request: Parameters<typeof matchRecords>[0],
  records: unknown[],
  taken: ReadonlySet<string> = new Set(),
) {
  return matchRecords(request, { records, unfinished: undefined }, taken);
}

const payout = requestFor('createPayout', PAYOUT);

/** A listed payout showing the amount, the account as given, and a time after the approval. */
function listed(account: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { id: 'po_1', status: 'pending', amount: '33.3', created_at: AFTER, ...account, ...extra };
}

describe('matching a listed record as a provider shows it', () => {
  it.each([
    ['the last four digits under account_last4', { account_last4: '6789' }],
    ['the last four digits as a number', { last4: 6789 }],
    ['a mask of stars', { beneficiary_account: '****6789' }],
    ['a mask of bullets', { account_number: '••••6789' }],
    ['a mask of Xs', { accountNumber: 'XXXX6789' }],
    ['bare last digits in the full field', { beneficiary_account: '6789' }],
    ['a nested destination', { destination: { account: '••••6789' } }],
    ['a nested bank account', { beneficiary: { bank_account: { last4: '6789' } } }],
    ['the whole number, spaced', { beneficiary_account: '0001 2345 6789' }],
  ])('finds a payout showing the account as %s, the amount as 33.3', (_how, account) => {
    const result = match(payout, [listed(account)]);
    expect(result).toMatchObject({ kind: 'found', match: { id: 'po_1' } });
  });

  it('says which fields it saw only in part', () => {
    const result = match(payout, [listed({ account_last4: '6789' })]);
    expect(result.kind === 'found' && result.match.partial).toEqual(['beneficiary_account']);
  });

  it.each([
    ['other last digits', { account_last4: '1234' }],
    ['another masked number', { beneficiary_account: '****1234' }],
    ['a visible start that differs', { beneficiary_account: '999•••6789' }],
    ['only two digits, which identify no one', { account_last4: '89' }],
    ['no destination at all', {}],
    ['the account only under a source', { source: { account_number: '000123456789' } }],
  ])('does not match a payout showing %s', (_how, account) => {
    expect(match(payout, [listed(account)]).kind).toBe('none');
  });

  it('compares amounts as numbers, and a different amount is not it', () => {
    const shown = (amount: unknown) => listed({ account_last4: '6789' }, { amount });
    expect(match(payout, [shown('33.30')]).kind).toBe('found');
    expect(match(payout, [shown('033.300')]).kind).toBe('found');
    expect(match(payout, [shown({ value: '33.3', currency: 'USDC' })]).kind).toBe('found');
    expect(match(payout, [shown('33.31')]).kind).toBe('none');
    expect(match(payout, [shown('3.33')]).kind).toBe('none');
    expect(match(payout, [shown('33.3 USDC')]).kind).toBe('none');
    const big = requestFor('createPayout', { ...PAYOUT, amount: '1250.50' });
    expect(match(big, [shown('1,250.5')]).kind).toBe('found');
  });

  it('needs the amount shown: a destination alone is not it', () => {
    const { amount: _amount, ...noAmount } = listed({ account_last4: '6789' });
    expect(match(payout, [noAmount]).kind).toBe('none');
  });

  it('every field shown must agree, under whatever name; one that does not rules it out', () => {
    const account = { account_last4: '6789' };
    expect(match(payout, [listed(account, { currency: 'usdc' })]).kind).toBe('found');
    expect(match(payout, [listed(account, { currency: 'USD' })]).kind).toBe('none');
    expect(match(payout, [listed(account, { beneficiaryName: 'John Doe' })]).kind).toBe('none');
    expect(match(payout, [listed(account, { routing_number: '••••0021' })]).kind).toBe('found');
    expect(match(payout, [listed(account, { routing_number: '••••9999' })]).kind).toBe('none');
  });

  it('a payout paid by conversion is told by its amount, not by the other currency it debited', () => {
    const usd = requestFor('createPayout', { ...PAYOUT, currency: 'USD' });
    const converted = { currency: 'USD', source_currency: 'USDC', source_amount: '33.298' };
    const record = listed({ account_last4: '6789' }, converted);
    expect(match(usd, [record]).kind).toBe('found');
    expect(match(usd, [{ ...record, amount: '33.31' }]).kind).toBe('none');
    // In the request's own currency, a source amount is its amount, and must agree.
    const same = { currency: 'USD', source_currency: 'USD', source_amount: '33.298' };
    expect(match(usd, [listed({ account_last4: '6789' }, same)]).kind).toBe('none');
  });

  it('a currency shown for the destination is not the currency debited', () => {
    const record = listed({ account_last4: '6789' }, { destination: { currency: 'BRL' } });
    expect(match(payout, [record]).kind).toBe('found');
  });

  it('a record created before the approval is not it; one with no time may be, and is never taken', () => {
    const account = { account_last4: '6789' };
    const before = listed(account, { created_at: '2025-03-01T11:50:00.000Z' });
    expect(match(payout, [before]).kind).toBe('none');
    const epochBefore = listed(account, { created_at: undefined, created: 1740829800 });
    expect(match(payout, [epochBefore]).kind).toBe('none');
    const { created_at: _time, ...undated } = listed(account);
    const result = match(payout, [undated]);
    expect(result).toMatchObject({ kind: 'ambiguous', candidates: [{ timing: 'undated' }] });
  });

  it('two records matching equally are ambiguous, never a guess', () => {
    const first = listed({ account_last4: '6789' });
    const second = { ...first, id: 'po_2' };
    const result = match(payout, [first, second]);
    expect(result.kind).toBe('ambiguous');
    expect(result.kind === 'ambiguous' && result.candidates.map((c) => c.id)).toEqual([
      'po_1',
      'po_2',
    ]);
  });

  it('a record showing more of the request matches better than one showing less', () => {
    const whole = listed({ beneficiary_account: '000123456789' });
    const cut = { ...listed({ account_last4: '6789' }), id: 'po_2' };
    expect(match(payout, [cut, whole])).toMatchObject({
      kind: 'found',
      match: { id: 'po_1' },
      weaker: [{ id: 'po_2' }],
    });
    const { created_at: _time, ...undated } = { ...whole, id: 'po_3' };
    expect(match(payout, [undated, whole])).toMatchObject({ match: { id: 'po_1' } });
  });

  it('a crypto transfer is told by its address, whole or abbreviated', () => {
    const fields = EXAMPLE_CALLS.createCryptoTransfer.body as Record<string, string>;
    const request = requestFor('createCryptoTransfer', fields);
    const address = fields.destination_address as string;
    const shown = (to: unknown) => ({ id: 'tr_1', amount: fields.amount, created_at: AFTER, to });
    const abbreviated = `${address.slice(0, 6)}…${address.slice(-4)}`;
    expect(match(request, [shown({ address: address.toUpperCase() })]).kind).toBe('found');
    expect(match(request, [shown({ address: abbreviated })]).kind).toBe('found');
    expect(match(request, [shown({ address: `${address.slice(0, 6)}…0000` })]).kind).toBe('none');
  });

  it('an off-ramp transfer is told by its recipient id, nested or not', () => {
    const fields = EXAMPLE_CALLS.createTransfer.body as Record<string, string>;
    const request = requestFor('createTransfer', fields);
    const id = fields.external_account_id as string;
    const shown = (extra: Record<string, unknown>) => ({
      id: 'tr_1',
      amount: fields.amount,
      created_at: AFTER,
      ...extra,
    });
    expect(match(request, [shown({ recipient: { id } })]).kind).toBe('found');
    expect(match(request, [shown({ externalAccountId: id })]).kind).toBe('found');
    expect(match(request, [shown({ recipient_id: 'ea_other' })]).kind).toBe('none');
    // Under any name of the destination; a bank account's own id is not the recipient's.
    expect(match(request, [shown({ payee: { id } })]).kind).toBe('found');
    expect(match(request, [shown({ counterparty_id: id })]).kind).toBe('found');
    expect(match(request, [shown({ destination: { account_id: id } })]).kind).toBe('found');
    expect(match(request, [shown({ counterparty_id: 'ea_other' })]).kind).toBe('none');
    const bankAccount = shown({ recipient_id: id, bank_account: { id: 'ba_1' } });
    expect(match(request, [bankAccount]).kind).toBe('found');
  });
});

describe('recognising a field by what its name is made of, and a value by its shape', () => {
  it.each([
    ['a name of its own, masked by stars', { payee_acct_masked: '****6789' }],
    ['nested as the last four', { destination: { last_four: '6789' } }],
    ['a dash after the mask', { beneficiaryAccountMasked: 'XX-6789' }],
    ['one star', { recipient: { acct_no: '*6789' } }],
    ['a mask of black circles, spaced', { bank_account: '●●●● 6789' }],
    ['words before the digits', { masked_account_number: 'ending in 6789' }],
    ['an IBAN-style name', { counterparty: { iban_last4: '6789' } }],
    ['three levels deep', { payee_details: { bank: { account: { last_four: '6789' } } } }],
    ['whole, with dashes, under an abbreviation', { dest_acct_no: '000-123-456-789' }],
  ])('finds a payout showing the account %s', (_how, account) => {
    expect(match(payout, [listed(account)])).toMatchObject({
      kind: 'found',
      match: { id: 'po_1' },
    });
  });

  it.each([
    ['other digits under a name of its own', { payee_acct_masked: '****1234' }],
    ['other digits nested', { destination: { last_four: '1234' } }],
    ['other digits in a shape of its own', { beneficiaryAccountMasked: 'XX-1234' }],
    [
      'a routing number that is not the one requested',
      { payee_acct_masked: '****6789', destination: { routing_last4: '9999' } },
    ],
    [
      'two names, one of them disagreeing',
      { payee_acct_masked: '****6789', destination: { last_four: '1234' } },
    ],
  ])('rules out a payout showing %s', (_how, account) => {
    expect(match(payout, [listed(account)]).kind).toBe('none');
  });

  it.each([
    ['the source’s account', { sender_account_last4: '6789' }],
    ['an account under the source', { funding: { acct_masked: '****6789' } }],
    [
      'an account under a parent that does not name the destination',
      { metadata: { account_last4: '6789' } },
    ],
    ['a bare account at the top: it may be the record’s own', { account: '6789' }],
    ['a bare number at the top', { number: '6789' }],
    ['digits under a name that is not an account', { destination: { bank_code: '6789' } }],
  ])('does not take %s for the destination', (_how, shown) => {
    expect(match(payout, [listed(shown)]).kind).toBe('none');
  });
});

describe('the guards reconciliation and following share', () => {
  const SENT_AT = '2025-03-01T12:00:04.000Z';
  const sent = { ...payout, sentAt: SENT_AT };
  const account = { account_last4: '6789' };
  const at = (ms: number) => new Date(Date.parse(SENT_AT) + ms).toISOString();

  it('counts only records created after the call went out; one made within the clocks’ difference before it is not taken', () => {
    // After the approval, before the call: not its effect.
    const beforeCall = listed(account, { created_at: at(-CLOCK_SKEW_MS - 1_000) });
    expect(match(sent, [beforeCall]).kind).toBe('none');
    const nearCall = listed(account, { created_at: at(-1_000) });
    expect(match(sent, [nearCall])).toMatchObject({
      kind: 'ambiguous',
      candidates: [{ id: 'po_1', timing: 'near_sending' }],
    });
    const afterCall = listed(account, { created_at: at(1) });
    expect(match(sent, [afterCall])).toMatchObject({ kind: 'found', match: { id: 'po_1' } });
  });

  it('a time shown to the second counts as after the call within the call’s own second', () => {
    const midSecond = { ...payout, sentAt: '2025-03-01T12:00:04.850Z' };
    const seconds = Math.floor(Date.parse(midSecond.sentAt) / 1000);
    const epoch = listed(account, { created_at: undefined, created: seconds });
    expect(match(midSecond, [epoch]).kind).toBe('found');
    const iso = listed(account, { created_at: '2025-03-01T12:00:04Z' });
    expect(match(midSecond, [iso]).kind).toBe('found');
    const secondBefore = listed(account, { created_at: undefined, created: seconds - 1 });
    expect(match(midSecond, [secondBefore]).kind).toBe('ambiguous');
    const msBefore = listed(account, { created_at: '2025-03-01T12:00:04.849Z' });
    expect(match(midSecond, [msBefore]).kind).toBe('ambiguous');
  });

  it('never takes a record another request is known by, and finds its own beside it', () => {
    const other = listed(account, { id: 'po_other', created_at: at(500) });
    expect(match(sent, [other], new Set(['po_other'])).kind).toBe('none');
    const own = listed(account, { id: 'po_own', created_at: at(900) });
    expect(match(sent, [other, own]).kind).toBe('ambiguous');
    expect(match(sent, [other, own], new Set(['po_other']))).toMatchObject({
      kind: 'found',
      match: { id: 'po_own' },
    });
  });

  it('a write on an existing record matches it by id whoever else named it', () => {
    const path = { externalAccountId: 'ea_1' };
    const deactivation = { ...requestFor('deactivateRecipient', {}), path, body: undefined };
    const record = { id: 'ea_1', status: 'inactive' };
    expect(match(deactivation, [record], new Set(['ea_1'])).kind).toBe('found');
  });

  it('takes nothing from a list read in part', () => {
    const unfinished: ListUnfinished = {
      code: 'page_unread',
      page: 2,
      error: { code: 'payments.timeout' },
    };
    const read = { records: [listed(account)], unfinished };
    expect(matchRecords(payout, read, new Set())).toMatchObject({
      kind: 'unfinished',
      candidates: [{ id: 'po_1' }],
      unfinished,
    });
  });

  it('following learns a record only as reconciliation would take it', () => {
    const list = 'listPayouts';
    const whole = (records: unknown[]) => ({ records, pages: 1, unfinished: undefined });
    /** Why it is not taken, as its follow-up's history says. */
    const why = (found: RecordInList) =>
      found.kind === 'unsure' ? followLookErrorText(found.why) : found.kind;
    const { created_at: _time, ...undated } = listed(account, { status: 'returned' });
    expect(why(recordIn(whole([undated]), sent, new Set(), list))).toBe(
      'po_1 in /payouts matches it but shows no creation time, so it may be an earlier payment; payops does not take it',
    );
    const dated = listed(account, { created_at: at(1) });
    expect(recordIn(whole([dated]), sent, new Set(['po_1']), list)).toEqual({ kind: 'absent' });
    const unfinished: ListUnfinished = { code: 'no_list', page: 2 };
    expect(why(recordIn({ ...whole([dated]), unfinished }, sent, new Set(), list))).toBe(
      'one record (po_1) matches among 1 records of /payouts read, but page 2 holds no list payops can read; payops does not take it',
    );
    expect(recordIn(whole([dated]), sent, new Set(), list)).toEqual({
      kind: 'found',
      record: dated,
    });
  });
});

describe('the next page of a list, from its reply', () => {
  const items = [{ id: 'po_1' }, { id: 'po_2' }];
  it.each([
    ['next_cursor', { data: items, next_cursor: 'abc' }, { cursor: 'abc' }],
    ['meta.next_cursor', { data: items, meta: { next_cursor: 'abc' } }, { cursor: 'abc' }],
    ['a plain next token', { data: items, next: 'abc' }, { cursor: 'abc' }],
    ['a page token', { data: items, next_page_token: 't1' }, { page_token: 't1' }],
    [
      'links.next',
      { data: items, links: { next: 'https://api.example/v1/payouts?cursor=c2&limit=5' } },
      { cursor: 'c2', limit: '5' },
    ],
    [
      '_links.next.href',
      { data: items, _links: { next: { href: '/v1/payouts?p=2' } } },
      { p: '2' },
    ],
    ['page of total_pages', { data: items, page: 1, total_pages: 3 }, { page: '2' }],
    ['next_page', { data: items, pagination: { next_page: 4 } }, { page: '4' }],
    ['has_more', { data: items, has_more: true }, { starting_after: 'po_2' }],
    [
      'hasNextPage and endCursor',
      { data: items, pageInfo: { hasNextPage: true, endCursor: 'e1' } },
      { cursor: 'e1' },
    ],
  ])('follows %s', (_how, body, params) => {
    expect(nextPageOf(body, items, '/payouts')).toEqual({ kind: 'more', params });
  });

  it.each([
    ['a bare array', items, false],
    ['a null cursor', { data: items, next_cursor: null }, true],
    ['the last page', { data: items, page: 3, total_pages: 3 }, true],
    ['has_more false, whatever else it says', { data: items, has_more: false, next: 'abc' }, true],
    ['no paging fields', { data: items }, false],
  ])('ends at %s (said so: %s)', (_how, body, stated) => {
    expect(nextPageOf(body, items, '/payouts')).toEqual({ kind: 'end', stated });
  });

  it('does not follow a link to another list, nor has_more without an id', () => {
    const elsewhere = { data: items, links: { next: 'https://other.example/v2/transfers?c=1' } };
    expect(nextPageOf(elsewhere, items, '/payouts')).toEqual({
      kind: 'unfollowable',
      why: { code: 'other_address', path: '/v2/transfers' },
    });
    expect(nextPageOf({ data: [{}], has_more: true }, [{}], '/payouts')).toEqual({
      kind: 'unfollowable',
      why: { code: 'no_way_to_ask' },
    });
  });
});
