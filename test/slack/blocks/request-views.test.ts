import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../src/app/request-queries.ts';
import type { PaymentRequest } from '../../../src/domain/approval.ts';
import { renderRequestDetail, renderRequestList } from '../../../src/slack/blocks/request-views.ts';
import { EXAMPLE_CALLS } from '../../helpers/payments.ts';
import { storedRequest } from '../../helpers/requests.ts';
import { allText, expectValidMessage, factRows } from './slack-message-checks.ts';

/** The sandbox payout example's beneficiary account. */
const ACCOUNT = EXAMPLE_CALLS.createPayout.body?.beneficiary_account ?? '';

/** The sandbox's example payout as pending request #id for `amount`; `overrides` change any fact. */
function payout(
  id: number,
  amount: string,
  overrides: Partial<PaymentRequest> = {},
): PaymentRequest {
  const body = JSON.stringify({ ...EXAMPLE_CALLS.createPayout.body, amount });
  return storedRequest('createPayout', {}, body, {
    id,
    requesterId: 'U0REQ',
    requiredApprovals: 2,
    approvals: [{ userId: 'U0APP', at: '2026-03-01T11:00:00.000Z' }],
    messageTs: '1.2',
    ...overrides,
  });
}

function rendered(message: Parameters<typeof expectValidMessage>[0]) {
  expectValidMessage(message);
  return { message, text: allText(message), json: JSON.stringify(message) };
}

describe('renderRequestList', () => {
  it('shows each pending request: number, operation, exact amount, requester, age, approvals', () => {
    const { text } = rendered(
      renderRequestList([payout(12, '10000.00'), payout(13, '0.10')], 2, '/pay'),
    );
    expect(text).toContain('*#12* · Create a payout · 10000.00 USDC');
    expect(text).toContain('*#13* · Create a payout · 0.10 USDC');
    expect(text).toMatch(/Requested by <@U0REQ> <!date\^\d+\^\{ago\}\|2026-03-01T10:00:00\.000Z>/);
    expect(text).toContain('1 of 2 approvals · expires <!date^');
  });

  it('has no buttons and no links: a decision counts only from the approval message', () => {
    const { message, json } = rendered(renderRequestList([payout(12, '5.00')], 1, '/pay'));
    expect(message.blocks.map((block) => block.type)).not.toContain('actions');
    expect(json).not.toContain('http');
  });

  it('never shows the full account number', () => {
    expect(rendered(renderRequestList([payout(12, '5.00')], 1, '/pay')).json).not.toContain(
      ACCOUNT,
    );
  });

  it('says so when nothing is pending', () => {
    const { message, text } = rendered(renderRequestList([], 0, '/pay'));
    expect(text).toContain('No request is waiting for approval.');
    expect(message.text).toBe('No pending requests');
  });

  it('a long list is cut to Slack limits and says how many of the total it shows', () => {
    const requests = Array.from({ length: 120 }, (_, index) => payout(index + 1, '1.00'));
    const { message } = rendered(renderRequestList(requests, 300, '/pay'));
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(message.blocks.at(-1))).toMatch(/Showing \d+ of 300 pending requests\./);
    expect(message.text).toMatch(/^300 pending requests, showing \d+$/);
  });
});

describe('renderRequestDetail', () => {
  const history: HistoryEntry[] = [
    { at: '2026-03-01T10:00:00.000Z', actor: 'U0REQ', event: 'requested', to: 'pending' },
    { at: '2026-03-01T11:00:00.000Z', actor: 'U0APP', event: 'approved' },
    {
      at: '2026-03-01T11:00:01.000Z',
      actor: 'system',
      event: 'claimed for execution',
      from: 'pending',
      to: 'executing',
    },
  ];

  it('shows the approval card facts, masked, then the audit history in order', () => {
    const { text, json, message } = rendered(
      renderRequestDetail(payout(12, '10000.00', { status: 'executing' }), history, '/pay'),
    );
    expect(text).toContain('*Executing* — do not act on it elsewhere');
    const rows = factRows(message.blocks);
    expect(rows).toContainEqual(['*Amount*', '10000.00 USDC']);
    expect(rows).toContainEqual(['*Account*', '••••6789']);
    expect(json).not.toContain(ACCOUNT);
    expect(text).toMatch(/\*History\*\n• <!date\^[^>]+> <@U0REQ> requested \(→ pending\)/);
    expect(text).toContain('<@U0APP> approved\n');
    expect(text).toContain('system claimed for execution (pending → executing)');
    expect(text).toContain('Payload fingerprint `');
  });

  it('says when no event is recorded', () => {
    expect(rendered(renderRequestDetail(payout(12, '1.00'), [], '/pay')).text).toContain(
      '*History*\n_No events recorded._',
    );
  });

  it('a thousand events are cut to Slack limits with "Showing N of 1000 events"', () => {
    const many = Array.from({ length: 1000 }, (_, index) => ({
      at: '2026-03-01T10:00:00.000Z',
      actor: 'U0APP',
      event: `event ${index} ${'x'.repeat(100)}`,
    }));
    const { message } = rendered(renderRequestDetail(payout(12, '1.00'), many, '/pay'));
    expect(JSON.stringify(message.blocks.at(-1))).toMatch(/Showing \d+ of 1000 events\./);
  });

  it('a week of redraws and notices (an unknown outcome looked for every minute) stays within limits', () => {
    const delivery = (
      id: number,
      kind: 'card_update' | 'notice',
      state: 'delivered' | 'superseded',
    ) => ({
      id,
      kind,
      event: kind === 'notice' ? 'reconciled' : undefined,
      state,
      attempts: 1,
      dueAt: '2026-03-01T10:00:00.000Z',
      deliveredAt: state === 'delivered' ? '2026-03-01T10:00:01.000Z' : undefined,
      lastError: undefined,
    });
    const week = Array.from({ length: 10_080 }, (_, index) =>
      delivery(index + 1, 'card_update', index % 10 === 0 ? 'superseded' : 'delivered'),
    );
    const notices = Array.from({ length: 30 }, (_, index) =>
      delivery(20_000 + index, 'notice', 'delivered'),
    );
    const { message, text } = rendered(
      renderRequestDetail(payout(12, '1.00', { status: 'unknown' }), [], '/pay', [
        ...week,
        ...notices,
      ]),
    );
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(text.length).toBeLessThan(12_000);
    expect(text).toContain('9072 card redraws delivered, the last <!date^');
    expect(text).toContain('1008 not needed');
    expect(text).toContain('20 earlier messages not shown');
    expect(text.match(/thread notice \(reconciled\): delivered/g)).toHaveLength(10);
  });

  it('actors and events from the log are escaped: <!channel> stays text', () => {
    const { text } = rendered(
      renderRequestDetail(
        payout(12, '1.00'),
        [
          {
            at: 'not a date',
            actor: '<!channel>',
            event: '<!here> did *it*',
            from: '<x>',
            to: '&',
          },
        ],
        '/pay',
      ),
    );
    expect(text).toContain('&lt;!channel&gt; &lt;!here&gt; did *it* (&lt;x&gt; → &amp;)');
  });

  it('property: any history and amount render within limits without garbage', () => {
    const garbage = /undefined|\[object Object\]|NaN/;
    const text = fc.string({ maxLength: 300 }).filter((value) => !garbage.test(value));
    const entry = fc.record({
      at: text,
      actor: text,
      event: text,
      from: fc.option(text, { nil: undefined }),
      to: fc.option(text, { nil: undefined }),
    });
    fc.assert(
      fc.property(text, fc.array(entry, { maxLength: 200 }), (amount, entries) => {
        expectValidMessage(renderRequestDetail(payout(1, amount), entries, '/pay'));
        expectValidMessage(renderRequestList([payout(1, amount)], 1, '/pay'));
      }),
      { numRuns: 200 },
    );
  });
});

describe('/pay request N of a followed payout', () => {
  it('lists every status seen, and why the last look learnt nothing', () => {
    const request = payout(12, '25.00', {
      status: 'submitted',
      follow: {
        providerId: 'po_1',
        status: 'processing',
        history: [
          { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
          { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
        ],
        startedAt: '2026-03-01T10:01:00.000Z',
        lastCheckedAt: '2026-03-01T10:06:00.000Z',
        lastListedAt: '2026-03-01T10:05:00.000Z',
        disappearedAt: undefined,
        lastError: {
          code: 'read_failed',
          list: 'listPayouts',
          error: { code: 'payments.server_error', status: 503 },
        },
        stoppedReason: undefined,
        stoppedAt: undefined,
      },
    });
    const { text } = rendered(renderRequestDetail(request, [], '/pay'));
    expect(text).toContain('*Provider status history* `po_1`');
    expect(text.indexOf('`pending`')).toBeLessThan(text.indexOf('`processing`'));
    expect(text).toContain(
      'could not read /payouts: The Payments API failed with an internal error (503).',
    );
  });
});
