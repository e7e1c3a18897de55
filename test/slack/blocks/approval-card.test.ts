import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type PaymentRequest,
  type Reconciliation,
  type RequestStatus,
  TRANSITIONS,
} from '../../../src/domain/approval.ts';
import type { ProviderFollow } from '../../../src/domain/follow.ts';
import type { ReconciliationFinding } from '../../../src/domain/list-findings.ts';
import { BANKING_FIELDS, isWrite, OPERATION_IDS } from '../../../src/domain/operations.ts';
import {
  MAX_BODY_LENGTH,
  MAX_IDENTIFIER_LENGTH,
  MAX_VALUE_LENGTH,
} from '../../../src/domain/write-commands.ts';
import {
  type ApprovalCardContext,
  payeeText,
  renderApprovalCard,
  renderRequesterConfirmation,
  renderThreadUpdate,
} from '../../../src/slack/blocks/approval-card.ts';
import type { SlackMessage } from '../../../src/slack/blocks/format.ts';
import { ACTION } from '../../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../../helpers/payments.ts';
import { storedRequest } from '../../helpers/requests.ts';
import {
  allText,
  expectNoLiveMarkup,
  expectValidMessage,
  factRows,
} from './slack-message-checks.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const STATUSES = Object.keys(TRANSITIONS) as RequestStatus[];
const WRITE_IDS = OPERATION_IDS.filter(isWrite);

/** The sandbox's payout example, for an amount that needs attention. */
const PAYOUT_FIELDS = {
  ...EXAMPLE_CALLS.createPayout.body,
  wallet_id: 'wal_1',
  amount: '10000.00',
  currency: 'USD',
};

function request(
  overrides: Partial<PaymentRequest> = {},
  fields: Record<string, unknown> = PAYOUT_FIELDS,
): PaymentRequest {
  const operationId = overrides.operationId ?? 'createPayout';
  const path = overrides.path ?? {};
  const body = Object.keys(fields).length === 0 ? undefined : JSON.stringify(fields);
  return storedRequest(operationId, path, body, overrides);
}

/** What each status says once decided, with the facts that status carries. */
const APPROVED = { approvals: [{ userId: 'U02', at: '2026-03-01T11:00:00.000Z' }] };

const DECIDED: Record<Exclude<RequestStatus, 'pending'>, [Partial<PaymentRequest>, string[]]> = {
  executing: [APPROVED, ['*Executing* — do not act on it elsewhere', 'Approved by <@U02>']],
  submitted: [
    {
      ...APPROVED,
      outcome: { status: 201, providerId: 'po_123', providerStatus: 'pending', requestId: 'req_9' },
    },
    [
      '*Submitted to the provider, not settled.*',
      'provider id `po_123`',
      'provider status `pending`',
      'request id `req_9`',
    ],
  ],
  failed: [
    {
      ...APPROVED,
      outcome: { status: 422, code: 'insufficient_funds', message: 'Not enough', requestId: 'r1' },
    },
    [
      '*The provider refused it: nothing was executed.*',
      'HTTP 422',
      'code `insufficient_funds`',
      'Not enough',
      'request id `r1`',
    ],
  ],
  unknown: [
    {
      ...APPROVED,
      outcome: { message: 'timeout' },
    },
    [
      '*Outcome unknown — do NOT resubmit.*',
      'not checked yet',
      'The same write cannot be requested again',
      '`/pay resolve 12 executed|not-executed &lt;what you checked&gt;`',
    ],
  ],
  rejected: [
    { decidedBy: 'U03', reason: 'wrong beneficiary' },
    ['*Rejected* by <@U03>', 'wrong beneficiary'],
  ],
  cancelled: [{ decidedBy: 'U01' }, ['*Cancelled* by the requester <@U01>']],
  expired: [{}, ['*Expired*', '0 of 1 approvals', 'can no longer be approved']],
  superseded: [
    { decidedBy: 'U01', labels: { supersededBy: 13 } },
    ['*Superseded*', 'by request #13', 'can no longer be approved', 'nothing was sent'],
  ],
};

/**
 * The message-level checks of slack-message-checks.ts hold for every block but the buttons,
 * which are checked here against Slack's limits for buttons and confirm dialogs.
 */
function expectValidCard(message: SlackMessage): void {
  const actions = message.blocks.filter((block): block is ActionsBlock => block.type === 'actions');
  expectValidMessage({
    ...message,
    blocks: message.blocks.filter((block) => !actions.includes(block as ActionsBlock)),
  });
  for (const button of actions.flatMap((block) => block.elements as Button[])) {
    expect(button.text.text.length).toBeLessThanOrEqual(75);
    expect(button.value?.length ?? 0).toBeLessThanOrEqual(2000);
    if (button.confirm) {
      expect(button.confirm.title?.text.length).toBeLessThanOrEqual(100);
      expect(button.confirm.text.text.length).toBeLessThanOrEqual(300);
      expect(button.confirm.confirm?.text.length).toBeLessThanOrEqual(30);
      expect(button.confirm.deny?.text.length).toBeLessThanOrEqual(30);
    }
  }
}

function card(req: PaymentRequest, context: Partial<ApprovalCardContext> = {}) {
  const message = renderApprovalCard(req, { command: '/pay', now: NOW, ...context });
  expectValidCard(message);
  return {
    message,
    text: allText(message),
    json: JSON.stringify(message),
    rows: factRows(message.blocks),
  };
}

function buttonsOf(blocks: readonly KnownBlock[]): Button[] {
  return blocks.flatMap((block) => (block.type === 'actions' ? (block.elements as Button[]) : []));
}

describe('renderApprovalCard: what exactly is asked', () => {
  it('the header names the request number, the operation and the amount', () => {
    const { message } = card(request());
    expect(message.blocks[0]).toMatchObject({
      type: 'header',
      text: { type: 'plain_text', text: '#12 · Create a payout · 10000.00 USD' },
    });
  });

  it('a payout states requester, operation, amount, wallet, beneficiary, masked numbers and rail', () => {
    const { text, rows } = card(request(), { labels: { walletLabel: 'Payroll' } });
    expect(text).toContain('*Requested by:* <@U01> <!date^');
    expect(text).toContain('*Operation:* Create a payout `POST /payouts`');
    expect(rows).toEqual([
      ['*Amount*', '10000.00 USD'],
      ['*Wallet*', 'wal_1 (Payroll)'],
      ['*Beneficiary*', 'Jane Roe'],
      ['*Account*', '••••6789'],
      ['*Routing*', '••••0021'],
      ['*Rail*', 'ach'],
    ]);
  });

  it('a purpose is shown under the operation, escaped, apart from the values sent; none, no line', () => {
    const { text, rows } = card(request({ purpose: 'Invoice 2291 <!channel> & co' }));
    expect(text).toContain(
      "*Purpose:* Invoice 2291 &lt;!channel&gt; &amp; co _(payops's own record; not sent to the provider)_",
    );
    expect(rows.flat().join(' ')).not.toContain('Invoice');
    expect(card(request()).text).not.toContain('Purpose');
  });

  it('a supporting document is shown under the purpose: its name linked, its size and the start of its SHA-256', () => {
    const document = {
      fileId: 'F0INVOICE1',
      name: 'invoice <2291>|final.pdf',
      size: 2048,
      sha256: '3f2a9c0d1e7b'.padEnd(64, '0'),
      permalink: 'https://acme.slack.com/files/U0ALICE/F0INVOICE1/invoice.pdf',
    };
    const { text, rows } = card(request({ purpose: 'Invoice 2291', document }));
    expect(text).toContain(
      '*Document:* <https://acme.slack.com/files/U0ALICE/F0INVOICE1/invoice.pdf|invoice &lt;2291&gt;¦final.pdf> (2 KB, SHA-256 `3f2a9c0d1e7b…`)',
    );
    expect(text.indexOf('*Purpose:*')).toBeLessThan(text.indexOf('*Document:*'));
    expect(rows.flat().join(' ')).not.toContain('F0INVOICE1');
    expect(card(request({ document: { ...document, permalink: undefined } })).text).toContain(
      '*Document:* invoice &lt;2291&gt;|final.pdf (2 KB',
    );
    expect(card(request()).text).not.toContain('Document');
  });

  it('a transfer takes its currency from source_currency and names the recipient and corridor', () => {
    const fields = {
      wallet_id: 'wal_1',
      external_account_id: 'ext_7',
      amount: '250.5',
      source_currency: 'USDC',
      corridor_id: 'cor_us_mx',
    };
    const { text, rows } = card(request({ operationId: 'createTransfer' }, fields), {
      labels: { recipientName: 'Acme SA' },
    });
    expect(rows).toContainEqual(['*Amount*', '250.5 USDC']);
    expect(rows).toContainEqual(['*Recipient*', 'ext_7 (Acme SA)']);
    expect(rows).toContainEqual(['*Corridor*', 'cor_us_mx']);
    expect(text).not.toContain('source_currency');
  });

  it('a field without a label of its own is named by its spec name', () => {
    const fields = EXAMPLE_CALLS.createRecipient.body ?? {};
    const { rows } = card(request({ operationId: 'createRecipient' }, fields));
    expect(rows).toEqual([
      ['*Corridor*', fields.corridor_id],
      ['*Account owner*', 'Jane Roe'],
      ['*bank_name*', 'First Test Bank'],
      ['*Account number*', '••••6789'],
      ['*Routing number*', '••••0021'],
      ['*street_line_1*', '1 Main St'],
      ['*city*', 'Springfield'],
      ['*state*', 'IL'],
      ['*postal_code*', '62701'],
      ['*country*', 'US'],
    ]);
  });

  it('a crypto transfer shows its destination address by its first and last 8 characters, never whole', () => {
    const fields = {
      wallet_id: 'wal_1',
      amount: '1.000000',
      source_currency: 'USDC',
      destination_currency: 'USDC',
      destination_payment_rail: 'polygon',
      destination_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    };
    const { rows, json } = card(request({ operationId: 'createCryptoTransfer' }, fields));
    expect(rows).toContainEqual(['*Destination address*', '0x529084…E4169EE7']);
    expect(rows).toContainEqual(['*Rail*', 'polygon']);
    expect(rows).toContainEqual(['*destination_currency*', 'USDC']);
    expect(json).not.toContain('0x52908400098527886E0F7030069857D2E4169EE7');
  });

  it('an id typed as an account number is masked all the same', () => {
    const { json } = card(
      request(
        { operationId: 'deactivateDepositAccount', path: { virtualAccountId: '021000021' } },
        {},
      ),
    );
    expect(json).not.toContain('021000021');
    expect(json).toContain('••••0021');
  });

  it('a short crypto destination (a name such as treasury.eth) is shown whole, not by its tail', () => {
    const fields = { wallet_id: 'wal_1', amount: '1', destination_address: 'attacker.eth' };
    const { rows } = card(request({ operationId: 'createCryptoTransfer' }, fields));
    expect(rows).toContainEqual(['*Destination address*', 'attacker.eth']);
  });

  it('the payee tag, and the warnings for a new payee and for a name paid elsewhere', () => {
    const text = payeeText(
      { tag: 'K7QF-29MX', newPayee: true, changedFrom: ['AB12-CD34'] },
      { deciding: true },
    );
    expect(text).toContain('*Payee tag:* `K7QF-29MX`');
    expect(text).toMatch(/New payee/);
    expect(text).toMatch(/Changed details.*`AB12-CD34`/);
    expect(
      payeeText({ tag: 'K7QF-29MX', newPayee: false, changedFrom: [] }, { deciding: true }),
    ).not.toMatch(/:warning:/);
  });

  it('the warnings meant for the approver are on the card until it is decided, the payee tag stays', () => {
    const labels = {
      payee: { tag: 'K7QF-29MX', newPayee: true, changedFrom: ['AB12-CD34'] },
      checks: [
        {
          name: 'balance' as const,
          outcome: 'failed' as const,
          finding: {
            code: 'insufficient' as const,
            available: '5.00',
            currency: 'USD',
            requested: '10.00',
          },
        },
      ],
      windowRaised: {
        window: '24h',
        total: '12000.00',
        currencies: ['USD'],
        threshold: '10000',
        requests: 1,
      },
    };
    const fields = { ...PAYOUT_FIELDS, beneficiary_name: 'Ελένη Smith' };
    const WARNINGS = [
      'New payee',
      'Changed details',
      'mixes scripts: Greek, Latin',
      'Checked when requested',
      'Adds up',
    ];
    const pending = card(request({}, fields), { labels }).text;
    for (const warning of WARNINGS) expect(pending).toContain(warning);
    const decided = [
      ...STATUSES.filter((status) => status !== 'pending').map((status) =>
        request({ status, ...DECIDED[status as Exclude<RequestStatus, 'pending'>][0] }, fields),
      ),
      request({ expiresAt: '2026-03-01T11:59:00.000Z' }, fields),
    ];
    for (const each of decided) {
      const { text } = card(each, { labels });
      expect(text).toContain('*Payee tag:* `K7QF-29MX`');
      for (const warning of WARNINGS) expect(text).not.toContain(warning);
    }
  });

  it.each(WRITE_IDS)(
    '%s: the sandbox example shows every body field, with banking values masked',
    (operationId) => {
      const { body = {}, path = {} } = EXAMPLE_CALLS[operationId];
      const { text, json, rows } = card(request({ operationId, path }, body));
      for (const [name, value] of Object.entries(body)) {
        if (BANKING_FIELDS.has(name)) expect(json).not.toContain(value);
        else expect(text).toContain(value);
      }
      const shown = rows.map(([, value]) => value);
      for (const value of Object.values(path)) expect(shown).toContain(value);
    },
  );

  it('a write without a body names what it acts on from its path', () => {
    const { text, rows } = card(
      request({ operationId: 'deactivateRecipient', path: { externalAccountId: 'ext_9' } }, {}),
      { labels: { recipientName: 'Old vendor' } },
    );
    expect(rows).toEqual([['*Recipient*', 'ext_9 (Old vendor)']]);
    expect(text).toContain('`POST /external-accounts/{externalAccountId}/deactivate`');
  });

  it('the payload fingerprint is shown in code style', () => {
    const req = request();
    expect(card(req).text).toContain(`Payload fingerprint \`${req.fingerprint}\``);
  });

  it('amounts keep their exact digits: "10000.00" stays "10000.00", "0.10" stays "0.10"', () => {
    for (const amount of ['10000.00', '0.10', '1e3', '00012.5000']) {
      const { rows } = card(request({}, { ...PAYOUT_FIELDS, amount }));
      expect(rows).toContainEqual(['*Amount*', `${amount} USD`]);
    }
  });

  it('the full account and routing numbers never appear anywhere in the JSON, in any status', () => {
    for (const status of STATUSES) {
      const req = request({ status, ...DECIDED[status as Exclude<RequestStatus, 'pending'>]?.[0] });
      const everything = JSON.stringify([
        renderApprovalCard(req, { command: '/pay', now: NOW }),
        renderRequesterConfirmation(req, 'https://acme.slack.com/archives/C1/p1', '/pay'),
        renderThreadUpdate(req),
      ]);
      expect(everything).not.toContain('000123456789');
      expect(everything).not.toContain('021000021');
    }
  });

  it('user-given text cannot mention, link or broadcast: <!channel> is escaped everywhere', () => {
    const hostile = '<!channel> <@U999> <https://evil.example|click> & *bold*';
    const req = request(
      { status: 'rejected', decidedBy: 'U03', reason: hostile },
      { ...PAYOUT_FIELDS, beneficiary_name: hostile, [hostile]: hostile },
    );
    const hostileFreeze = { reason: hostile, by: 'U05', at: '2026-03-01T09:00:00.000Z' };
    const { message, rows } = card(req, {
      freeze: hostileFreeze,
      labels: { walletLabel: hostile, recipientName: hostile },
    });
    // Values are plain text, which Slack never parses: shown exactly as typed.
    expect(rows).toContainEqual(['*Beneficiary*', hostile]);
    expect(rows.filter(([, value]) => value === hostile)).toHaveLength(2);
    expectNoLiveMarkup(message);
    const pending = card(request(), { freeze: hostileFreeze }).text;
    expect(pending).toContain('*Payments are frozen*');
    expect(pending).not.toContain('<!channel>');
    expectNoLiveMarkup({ text: renderThreadUpdate(req).text, blocks: [] });
  });

  it('shows every value payops accepts whole, however long, escaped or not', () => {
    const name = `${'A&B '.repeat(MAX_VALUE_LENGTH / 4 - 1)}Corp`;
    const rail = `${'&'.repeat(MAX_VALUE_LENGTH - 1)}x`;
    const wallet = `w${'<'.repeat(MAX_IDENTIFIER_LENGTH - 1)}`;
    const fields = { ...PAYOUT_FIELDS, beneficiary_name: name, destination_type: rail };
    const { message, rows } = card(request({}, { ...fields, wallet_id: wallet }));
    expect(name).toHaveLength(MAX_VALUE_LENGTH);
    expect(Object.values(fields).join('').length).toBeLessThanOrEqual(MAX_BODY_LENGTH);
    expect(rows).toContainEqual(['*Beneficiary*', name]);
    expect(rows).toContainEqual(['*Rail*', rail]);
    expect(rows).toContainEqual(['*Wallet*', wallet]);
    expectValidCard(message);
    expect(buttonsOf(message.blocks)).toHaveLength(3);
  });

  it('shows every value as plain text, exactly as sent: no mrkdwn, emoji code or swapped backtick', () => {
    const fields = {
      ...PAYOUT_FIELDS,
      wallet_id: 'wal`1',
      beneficiary_name: '*Jane* _Roe_ ~Mallory~ `x` :smile:',
    };
    const { message, rows } = card(request({}, fields));
    expect(rows).toContainEqual(['*Beneficiary*', '*Jane* _Roe_ ~Mallory~ `x` :smile:']);
    expect(rows).toContainEqual(['*Wallet*', 'wal`1']);
    const values = message.blocks.flatMap((block) =>
      block.type === 'section' ? (block.fields ?? []).filter((_, index) => index % 2 === 1) : [],
    );
    expect(values.length).toBe(rows.length);
    for (const value of values) expect(value).toMatchObject({ type: 'plain_text', emoji: false });
  });

  it('names the script of a value written in another script than Latin', () => {
    const { rows } = card(request({}, { ...PAYOUT_FIELDS, beneficiary_name: 'Иван Петров' }));
    expect(rows).toContainEqual(['*Beneficiary* _(Cyrillic letters)_', 'Иван Петров']);
    expect(rows).toContainEqual(['*Rail*', 'ach']);
  });

  it('long values and hundreds of fields stay within Slack limits', () => {
    const long = 'x'.repeat(5000);
    const fields: Record<string, string> = Object.fromEntries(
      Object.keys(PAYOUT_FIELDS).map((name) => [name, long]),
    );
    for (let index = 0; index < 300; index++) fields[`extra_${index}_${long.slice(0, 50)}`] = long;
    const { message, text } = card(
      request(
        { approvals: Array.from({ length: 40 }, (_, i) => ({ userId: `U0${i}`, at: '' })) },
        fields,
      ),
      { freeze: { reason: long, by: 'U05', at: long }, labels: { walletLabel: long } },
    );
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    // Far past what payops accepts: cut, visibly, and the fingerprint of what is sent still shown.
    expect(text).toContain('…');
    expect(text).toContain('Payload fingerprint');
  });
});

describe('renderApprovalCard: buttons only while it can be approved', () => {
  it('a pending request has Approve (primary, carrying its id and fingerprint) and Reject (danger, its id)', () => {
    const shown = request();
    const [approve, reject] = buttonsOf(card(shown).message.blocks);
    expect(approve).toMatchObject({
      action_id: ACTION.approve,
      style: 'primary',
      value: `12:${shown.fingerprint}`,
      text: { text: 'Approve' },
    });
    expect(reject).toMatchObject({
      action_id: ACTION.reject,
      style: 'danger',
      value: '12',
      text: { text: 'Reject' },
    });
  });

  it('Approve asks for confirmation restating the amount and the recipient', () => {
    const [approve] = buttonsOf(card(request()).message.blocks);
    expect(approve?.confirm?.title?.text).toBe('Approve request #12?');
    expect(approve?.confirm?.text.text).toBe(
      'Create a payout of 10000.00 USD to Jane Roe (••••6789). Your approval sends it to the provider at once, exactly as shown.',
    );
  });

  it('the confirm dialog never cuts a value: a recipient too long to fit gives way to "see the card"', () => {
    const name = `${'Jane Roe '.repeat(40)}Junior`;
    const long = buttonsOf(
      card(request({}, { ...PAYOUT_FIELDS, beneficiary_name: name })).message.blocks,
    );
    expect(long[0]?.confirm?.text.text).toBe(
      'Create a payout of 10000.00 USD to ••••6789 (name: see the card). Your approval sends it to the provider at once, exactly as shown.',
    );
    const id = `ext_${'9'.repeat(MAX_IDENTIFIER_LENGTH - 4)}`;
    const transfer = request(
      { operationId: 'createTransfer' },
      {
        wallet_id: 'wal_1',
        external_account_id: id,
        amount: '250.50',
        source_currency: 'USDC',
        corridor_id: 'cor_1',
      },
    );
    const [approve] = buttonsOf(card(transfer, { labels: { recipientName: name } }).message.blocks);
    // The longest id payops accepts still fits whole, with the amount and the effect.
    expect(approve?.confirm?.text.text).toBe(
      `Send to a recipient (off-ramp) of 250.50 USDC to ${id} (name: see the card). Your approval sends it to the provider at once, exactly as shown.`,
    );
  });

  it('the confirm dialog shows values as typed: no emoji codes turned into pictures', () => {
    const [approve] = buttonsOf(
      card(request({}, { ...PAYOUT_FIELDS, beneficiary_name: ':x: *Jane*' })).message.blocks,
    );
    expect(approve?.confirm?.text).toMatchObject({ type: 'plain_text', emoji: false });
    expect(approve?.confirm?.text.text).toContain('to :x: *Jane* (••••6789)');
  });

  it('the confirm dialog says when this approval is not yet the last one needed', () => {
    const [approve] = buttonsOf(card(request({ requiredApprovals: 3 })).message.blocks);
    expect(approve?.confirm?.text.text).toContain('Your approval is one of 3 still needed.');
  });

  it('a pending request shows how many approvals it has, of how many, by whom, and its expiry', () => {
    const req = request({
      requiredApprovals: 2,
      approvals: [{ userId: 'U02', at: '2026-03-01T11:00:00.000Z' }],
    });
    expect(card(req).text).toContain(
      '*Waiting for approval:* 1 of 2 approvals (<@U02>). Expires <!date^1772445600^{date_short_pretty} {time_secs}|2026-03-02T10:00:00.000Z>.',
    );
  });

  it('a pending request past its expiry time shows no buttons and says it can no longer be approved', () => {
    const { message, text } = card(request(), { now: new Date('2026-03-02T10:00:00.000Z') });
    expect(buttonsOf(message.blocks)).toEqual([]);
    expect(text).toContain('*Past its expiry time*');
  });

  it.each(STATUSES.filter((status) => status !== 'pending'))(
    'a %s request has no buttons and says what happened, who and when',
    (status) => {
      const [overrides, wording] = DECIDED[status as Exclude<RequestStatus, 'pending'>];
      const { message, text } = card(request({ status, ...overrides }));
      expect(buttonsOf(message.blocks)).toEqual([]);
      for (const words of wording) expect(text).toContain(words);
      expect(text).toMatch(/<!date\^\d+\^/);
    },
  );

  /** An unknown outcome's message text, with what was learnt of it. */
  const unknownWith = (reconciliation: Omit<Reconciliation, 'checkedAt'>) =>
    card(
      request({
        status: 'unknown',
        reconciliation: { checkedAt: '2026-03-01T11:05:00.000Z', ...reconciliation },
      }),
    ).text;

  it('an unknown outcome states what reconciliation found: the id, nothing yet, or a failed check', () => {
    const read = { list: 'listPayouts', records: 3, pages: 1 } as const;
    const findings: Record<string, ReconciliationFinding> = {
      found: { code: 'found', list: 'listPayouts', record: { id: 'po_77' }, partial: [] },
      not_found: { code: 'not_found', read },
      check_failed: {
        code: 'read_failed',
        list: 'listPayouts',
        error: { code: 'payments.timeout' },
      },
    };
    const reconciled = (result: 'found' | 'not_found' | 'check_failed') =>
      unknownWith({
        result,
        providerId: result === 'found' ? 'po_77' : undefined,
        providerStatus: result === 'found' ? 'processing' : undefined,
        finding: findings[result],
      });
    expect(reconciled('found')).toContain(
      '*found* a matching operation, so it was executed (provider id `po_77` · provider status `processing`). po_77 in /payouts shows it: it was executed',
    );
    expect(reconciled('not_found')).toContain(
      'no record among 3 records on 1 page of /payouts shows it yet; it may still appear — payops checks again',
    );
    expect(reconciled('check_failed')).toContain(
      'could not read /payouts: The Payments API did not answer in time.',
    );
    expect(reconciled('not_found')).toContain('*not found yet*');
    expect(reconciled('check_failed')).toContain('*the check failed*');
    // Only a record found settles it: nothing found yet, or a failed check, holds the same write.
    expect(reconciled('found')).toContain('A new attempt needs a new request');
    expect(reconciled('not_found')).toContain('cannot be requested again');
    expect(reconciled('check_failed')).toContain('cannot be requested again');
  });

  it("an approver's word on an unknown outcome names them, what they found and what they checked", () => {
    const resolved = (result: 'found' | 'not_found') =>
      unknownWith({
        result,
        detail: 'no payout to this recipient in the dashboard',
        resolvedBy: 'U0CAROL',
      });
    expect(resolved('not_found')).toMatch(
      /Resolved by <@U0CAROL> <!date\^[^>]+>, who looked at the provider: \*not executed\* — the same write may be requested again\. no payout to this recipient in the dashboard/,
    );
    expect(resolved('found')).toContain('who looked at the provider: *executed*.');
    expect(resolved('not_found')).toContain('A new attempt needs a new request');
  });

  it('a freeze is shown as a banner naming who froze payments and why, buttons still there', () => {
    const { message, text } = card(request(), {
      freeze: { reason: 'incident 42', by: 'U09', at: '2026-03-01T09:00:00.000Z' },
    });
    expect(text).toMatch(
      /\*Payments are frozen\* by <@U09> <!date\^[^>]+>: incident 42 — approvals that would execute are refused until `\/pay unfreeze`\./,
    );
    expect(buttonsOf(message.blocks)).toHaveLength(3);
  });

  it('the banner stays while the freeze can still stop it (pending, executing), not once decided', () => {
    const freeze = { reason: 'incident 42', by: 'U09', at: '2026-03-01T09:00:00.000Z' };
    const shown = (status: RequestStatus) =>
      card(request({ status }), { freeze }).text.includes('*Payments are frozen*');
    for (const status of Object.keys(TRANSITIONS) as RequestStatus[]) {
      expect(shown(status)).toBe(status === 'pending' || status === 'executing');
    }
  });
});

describe('a write payops stopped before its one call', () => {
  /** What payops records when it stops a write: no HTTP status, since the provider never answered. */
  const STOPS = [
    "The wallet's balance is now too low (37.75 USDC available, less than the 40.00 requested): nothing was sent. Make a new request when the funds are there.",
    'The stored payload or its approvals no longer match what was approved; nothing was sent.',
    'Payments were frozen before it was sent: nothing was sent.',
    'it was never sent: payops stopped or failed between the claim and the call. Nothing was sent; make a new request if it is still wanted.',
  ];

  it.each(STOPS)(
    'says payops stopped it, never that the provider refused it or that it was sent: %s',
    (message) => {
      const stopped = request({ ...APPROVED, status: 'failed', outcome: { message } });
      const { text } = card(stopped);
      const thread = renderThreadUpdate(stopped).text;
      expect(text).toContain(
        '*payops stopped it before sending: nothing was sent.* Approved by <@U02>; stopped <!date',
      );
      expect(thread).toContain(
        'was approved by <@U02> but payops stopped it before sending, so nothing was sent:',
      );
      expect(renderApprovalCard(stopped, { command: '/pay', now: NOW }).text).toContain(
        'stopped by payops before sending, nothing sent',
      );
      for (const shown of [text, thread]) {
        expect(shown).not.toMatch(/refused|\bsent <!date/);
      }
    },
  );

  it("a refusal is the provider's only when it answered: an HTTP status", () => {
    const refused = request({
      ...APPROVED,
      status: 'failed',
      outcome: { status: 422, message: 'no' },
    });
    expect(card(refused).text).toContain('*The provider refused it: nothing was executed.*');
    expect(renderThreadUpdate(refused).text).toContain('but the provider refused it');
  });

  it('no line doubles its punctuation where it ends with text payops did not write', () => {
    for (const ending of ['there.', 'really?', 'stop!', 'cut…', 'plain']) {
      for (const status of ['submitted', 'failed', 'unknown'] as const) {
        for (const outcome of [
          { message: `the provider said ${ending}` },
          { status: 422, message: ending },
        ]) {
          const decided = request({ ...APPROVED, status, outcome });
          for (const shown of [card(decided).text, renderThreadUpdate(decided).text]) {
            expect(shown).not.toMatch(/[.!?…][.:]/);
          }
        }
      }
    }
  });
});

describe('renderRequesterConfirmation', () => {
  it('names the approvals channel, says what happens next, and offers Cancel while pending', () => {
    const message = renderRequesterConfirmation(request(), 'C0APPROVALS', '/pay');
    const text = allText(message);
    expect(text).toContain('Request *#12 · Create a payout · 10000.00 USD* created.');
    expect(text).toContain('Its approval card is posted in <#C0APPROVALS>.');
    expect(text).toContain(
      '*What happens next:* it needs one approval, from an approver other than you, before <!date^',
    );
    expect(buttonsOf(message.blocks)).toEqual([
      expect.objectContaining({ action_id: ACTION.cancel, value: '12', style: 'danger' }),
    ]);
    expectValidCard(message);
  });

  it('links no channel that is not a channel ID', () => {
    for (const channel of ['', '<!channel>', 'C1|x']) {
      const message = renderRequesterConfirmation(request(), channel, '/pay');
      expectValidCard(message);
      expect(allText(message)).toContain('posted in the approvals channel');
    }
  });

  it('once the request is no longer pending it offers no Cancel and says what happened', () => {
    const message = renderRequesterConfirmation(
      request({ status: 'cancelled', decidedBy: 'U01' }),
      'C0APPROVALS',
      '/pay',
    );
    expectValidCard(message);
    expect(buttonsOf(message.blocks)).toEqual([]);
    expect(allText(message)).toContain('*Cancelled* by the requester <@U01>');
  });
});

describe('renderThreadUpdate', () => {
  it('tells the requester an approved request was submitted, not settled, with the provider id', () => {
    const [overrides] = DECIDED.submitted;
    expect(renderThreadUpdate(request({ status: 'submitted', ...overrides })).text).toBe(
      '<@U01> #12 was approved by <@U02> and submitted to the provider (not settled): provider id `po_123` · provider status `pending` · HTTP 201 · request id `req_9`.',
    );
  });

  it.each(STATUSES)('a %s request gives one line addressed to the requester', (status) => {
    const overrides = status === 'pending' ? {} : DECIDED[status][0];
    const { text } = renderThreadUpdate(request({ status, ...overrides }));
    expect(text.startsWith('<@U01> #12 ')).toBe(true);
    expect(text.split('\n').length).toBeLessThanOrEqual(2);
    expect(text).not.toMatch(/undefined|\[object Object\]|NaN/);
  });

  it('a rejection carries the approver and the reason; an unknown outcome says do NOT resubmit', () => {
    expect(
      renderThreadUpdate(request({ status: 'rejected', decidedBy: 'U03', reason: 'dup' })).text,
    ).toBe('<@U01> #12 was rejected by <@U03>: dup');
    expect(renderThreadUpdate(request({ status: 'unknown' })).text).toContain('do NOT resubmit');
  });
});

describe('property: any request renders within limits', () => {
  const garbage = /undefined|\[object Object\]|NaN/;
  const text = fc.string({ maxLength: 400 }).filter((value) => !garbage.test(value));
  const iso = fc
    .date({ min: new Date('2001-01-01'), max: new Date('2090-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString());
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const arbitraryRequest = fc
    .record({
      id: fc.nat(),
      operationId: fc.constantFrom(...WRITE_IDS),
      path: fc.dictionary(text, text, { maxKeys: 3 }),
      fields: fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(PAYOUT_FIELDS)), text), text, {
        maxKeys: 30,
      }),
      requesterId: fc.oneof(fc.constant('U01'), text),
      status: fc.constantFrom(...STATUSES),
      requiredApprovals: fc.integer({ min: 1, max: 5 }),
      approvals: fc.array(fc.record({ userId: text, at: iso }), { maxLength: 60 }),
      createdAt: fc.oneof(iso, text),
      expiresAt: fc.oneof(iso, text),
      decidedBy: maybe(text),
      reason: maybe(text),
      outcome: maybe(
        fc.record({
          status: maybe(fc.integer()),
          requestId: maybe(text),
          providerId: maybe(text),
          providerStatus: maybe(text),
          code: maybe(text),
          message: maybe(text),
        }),
      ),
      reconciliation: maybe(
        fc.record({
          checkedAt: iso,
          result: fc.constantFrom('found' as const, 'not_found' as const, 'check_failed' as const),
          providerId: maybe(text),
          providerStatus: maybe(text),
          detail: text,
        }),
      ),
    })
    .map(({ fields, ...rest }) => request(rest, fields));

  it('renderApprovalCard, the confirmation and the thread update never throw and respect the limits', () => {
    fc.assert(
      fc.property(
        arbitraryRequest,
        maybe(fc.record({ reason: text, by: text, at: iso })),
        maybe(fc.record({ recipientName: maybe(text), walletLabel: maybe(text) })),
        (req, freeze, labels) => {
          expectValidCard(renderApprovalCard(req, { command: '/pay', now: NOW, freeze, labels }));
          expectValidCard(renderRequesterConfirmation(req, 'C0APPROVALS', '/pay'));
          const { text: line } = renderThreadUpdate(req);
          expect(line.length).toBeLessThanOrEqual(3000);
          expect(line).not.toMatch(garbage);
          expectNoLiveMarkup({ text: line, blocks: [] });
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Submitted request #12, its record followed at the provider as `follow` says. */
function followed(follow: Partial<ProviderFollow>): PaymentRequest {
  return request({
    ...APPROVED,
    status: 'submitted',
    outcome: { status: 201, providerId: 'po_1', providerStatus: 'pending' },
    follow: {
      providerId: 'po_1',
      status: 'pending',
      history: [{ status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' }],
      startedAt: '2026-03-01T10:01:00.000Z',
      lastCheckedAt: undefined,
      lastListedAt: undefined,
      disappearedAt: undefined,
      lastError: undefined,
      stoppedReason: undefined,
      stoppedAt: undefined,
      ...follow,
    },
  });
}

const followedCard = (message: PaymentRequest) =>
  renderApprovalCard(message, { command: '/pay', now: NOW });

describe('a followed record', () => {
  it('shows on the card its status, since when, and what it was, beside "submitted, not settled"', () => {
    const message = followedCard(
      followed({
        status: 'processing',
        history: [
          { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
          { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
        ],
      }),
    );
    expectValidMessage(message);
    const text = allText(message);
    expect(text).toContain('Submitted to the provider, not settled.');
    expect(text).toContain(
      "*Provider status:* `processing` · <!date^1772359500^{ago}|2026-03-01T10:05:00.000Z> (was `pending`) · payops reads the provider's list until it shows a final status",
    );
  });

  it('once the provider tells success or failure, the card says so, not "not settled" nor the status it was sent with', () => {
    for (const [status, outcome, headline] of [
      ['completed', 'success', ':white_check_mark: *Succeeded at the provider:* `completed`.'],
      ['returned', 'failure', ':x: *Failed at the provider:* `returned`.'],
    ] as const) {
      const message = followedCard(
        followed({
          status,
          history: [
            { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
            { status, seenAt: '2026-03-01T10:05:00.000Z', outcome },
          ],
        }),
      );
      const text = allText(message);
      expect(text).toContain(`${headline} Approved by <@U02>`);
      expect(text).toContain('provider id `po_1`');
      expect(text).not.toContain('not settled');
      expect(text).not.toContain('provider status `pending`');
      expect(message.text).toContain(`at the provider: ${status}`);
    }
  });

  it('a provider status is shown inert, whatever it holds', () => {
    const hostile = '<!channel> *paid* `x` <https://evil.example|click>';
    const request = followed({
      status: hostile,
      history: [
        { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
        { status: hostile, seenAt: '2026-03-01T10:05:00.000Z' },
      ],
    });
    expectNoLiveMarkup(followedCard(request));
    const notice = renderThreadUpdate(request, 'provider_status:2');
    expectNoLiveMarkup({ text: notice.text.replace('<@U01>', ''), blocks: [] });
  });

  it('tells each change in the thread by its number, so a late notice still tells its own change', () => {
    const request = followed({
      status: 'returned',
      history: [
        { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
        { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
        { status: 'returned', seenAt: '2026-03-01T11:00:00.000Z', final: true },
      ],
      stoppedReason: 'final_status',
      stoppedAt: '2026-03-01T11:00:00.000Z',
    });
    expect(renderThreadUpdate(request, 'provider_status:2').text).toBe(
      '<@U01> #12 Provider status changed: `pending` → `processing`. payops keeps following it.',
    );
    expect(renderThreadUpdate(request, 'provider_status:3').text).toBe(
      '<@U01> #12 Provider status changed: `processing` → `returned`. It is a final status: payops no longer follows it.',
    );
    expect(allText(followedCard(request))).toContain('(was `processing`) · final');
  });

  it.each([
    {
      what: 'its record missing',
      follow: {
        lastListedAt: '2026-03-01T10:02:00.000Z',
        disappearedAt: '2026-03-01T10:03:00.000Z',
      },
      event: 'provider_missing',
      notice:
        '<@U01> #12 is no longer listed at the provider (last seen `pending`). payops keeps looking and will tell any new status; check it at the provider.',
      onCard: ':warning: no longer listed at the provider since',
    },
    {
      what: 'following stopped without a final status',
      follow: { stoppedReason: 'time_limit', stoppedAt: '2026-03-08T10:01:00.000Z' } as const,
      event: 'follow_stopped',
      notice:
        '<@U01> #12 reached no final status at the provider in 7 days (last seen `pending`): payops no longer follows it. Check it at the provider.',
      onCard: 'no longer followed: no final status after 7 days',
    },
  ])('says so in the thread and on the card: $what', ({ follow, event, notice, onCard }) => {
    const request = followed(follow);
    expect(renderThreadUpdate(request, event).text).toBe(notice);
    expect(allText(followedCard(request))).toContain(onCard);
  });
});
