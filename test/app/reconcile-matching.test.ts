import { describe, expect, it } from 'vitest';
import { matchRecords } from '../../src/app/record-matching.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import { nextPageOf } from '../../src/payments/response-shape.ts';
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
    const result = matchRecords(payout, [listed(account)]);
    expect(result).toMatchObject({ kind: 'found', match: { id: 'po_1' } });
  });

  it('says which fields it saw only in part', () => {
    const result = matchRecords(payout, [listed({ account_last4: '6789' })]);
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
    expect(matchRecords(payout, [listed(account)]).kind).toBe('none');
  });

  it('compares amounts as numbers, and a different amount is not it', () => {
    const shown = (amount: unknown) => listed({ account_last4: '6789' }, { amount });
    expect(matchRecords(payout, [shown('33.30')]).kind).toBe('found');
    expect(matchRecords(payout, [shown('033.300')]).kind).toBe('found');
    expect(matchRecords(payout, [shown({ value: '33.3', currency: 'USDC' })]).kind).toBe('found');
    expect(matchRecords(payout, [shown('33.31')]).kind).toBe('none');
    expect(matchRecords(payout, [shown('3.33')]).kind).toBe('none');
    expect(matchRecords(payout, [shown('33.3 USDC')]).kind).toBe('none');
    const big = requestFor('createPayout', { ...PAYOUT, amount: '1250.50' });
    expect(matchRecords(big, [shown('1,250.5')]).kind).toBe('found');
  });

  it('needs the amount shown: a destination alone is not it', () => {
    const { amount: _amount, ...noAmount } = listed({ account_last4: '6789' });
    expect(matchRecords(payout, [noAmount]).kind).toBe('none');
  });

  it('every field shown must agree, under whatever name; one that does not rules it out', () => {
    const account = { account_last4: '6789' };
    expect(matchRecords(payout, [listed(account, { currency: 'usdc' })]).kind).toBe('found');
    expect(matchRecords(payout, [listed(account, { currency: 'USD' })]).kind).toBe('none');
    expect(matchRecords(payout, [listed(account, { beneficiaryName: 'John Doe' })]).kind).toBe(
      'none',
    );
    expect(matchRecords(payout, [listed(account, { routing_number: '••••0021' })]).kind).toBe(
      'found',
    );
    expect(matchRecords(payout, [listed(account, { routing_number: '••••9999' })]).kind).toBe(
      'none',
    );
  });

  it('a currency shown for the destination is not the currency debited', () => {
    const record = listed({ account_last4: '6789' }, { destination: { currency: 'BRL' } });
    expect(matchRecords(payout, [record]).kind).toBe('found');
  });

  it('a record created before the approval is not it; one with no time is, and says so', () => {
    const account = { account_last4: '6789' };
    const before = listed(account, { created_at: '2025-03-01T11:50:00.000Z' });
    expect(matchRecords(payout, [before]).kind).toBe('none');
    const epochBefore = listed(account, { created_at: undefined, created: 1740829800 });
    expect(matchRecords(payout, [epochBefore]).kind).toBe('none');
    const { created_at: _time, ...undated } = listed(account);
    const result = matchRecords(payout, [undated]);
    expect(result).toMatchObject({ kind: 'found', match: { undated: true } });
  });

  it('two records matching equally are ambiguous, never a guess', () => {
    const first = listed({ account_last4: '6789' });
    const second = { ...first, id: 'po_2' };
    const result = matchRecords(payout, [first, second]);
    expect(result.kind).toBe('ambiguous');
    expect(result.kind === 'ambiguous' && result.candidates.map((c) => c.id)).toEqual([
      'po_1',
      'po_2',
    ]);
  });

  it('a record showing more of the request matches better than one showing less', () => {
    const whole = listed({ beneficiary_account: '000123456789' });
    const cut = { ...listed({ account_last4: '6789' }), id: 'po_2' };
    expect(matchRecords(payout, [cut, whole])).toMatchObject({
      kind: 'found',
      match: { id: 'po_1' },
      weaker: [{ id: 'po_2' }],
    });
    const { created_at: _time, ...undated } = { ...whole, id: 'po_3' };
    expect(matchRecords(payout, [undated, whole])).toMatchObject({ match: { id: 'po_1' } });
  });

  it('a crypto transfer is told by its address, whole or abbreviated', () => {
    const fields = EXAMPLE_CALLS.createCryptoTransfer.body as Record<string, string>;
    const request = requestFor('createCryptoTransfer', fields);
    const address = fields.destination_address as string;
    const shown = (to: unknown) => ({ id: 'tr_1', amount: fields.amount, created_at: AFTER, to });
    const abbreviated = `${address.slice(0, 6)}…${address.slice(-4)}`;
    expect(matchRecords(request, [shown({ address: address.toUpperCase() })]).kind).toBe('found');
    expect(matchRecords(request, [shown({ address: abbreviated })]).kind).toBe('found');
    expect(matchRecords(request, [shown({ address: `${address.slice(0, 6)}…0000` })]).kind).toBe(
      'none',
    );
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
    expect(matchRecords(request, [shown({ recipient: { id } })]).kind).toBe('found');
    expect(matchRecords(request, [shown({ externalAccountId: id })]).kind).toBe('found');
    expect(matchRecords(request, [shown({ recipient_id: 'ea_other' })]).kind).toBe('none');
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
    expect(nextPageOf(elsewhere, items, '/payouts').kind).toBe('unfollowable');
    expect(nextPageOf({ data: [{}], has_more: true }, [{}], '/payouts').kind).toBe('unfollowable');
  });
});
