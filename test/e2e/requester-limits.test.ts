import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const LIMIT = `rules:
  - operations: [payout]
    currency: USDC
    approvals: 1
    requester_limit: { amount: "1000", window: 24h, approvals: 2 }
  - operations: [payout]
    currency: USD
    approvals: 1
    requester_limit: { amount: "1000", window: 24h, approvals: 2 }
  - operations: [payout]
    currency: EUR
    approvals: 1
    requester_limit: { amount: "1000", window: 24h, refuse: true }
`;

const folder = mkdtempSync(join(tmpdir(), 'payops-limits-e2e-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const fieldsText = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ');

describe("a requester's limit across payees, end to end over signed Slack requests", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    const policy = join(folder, 'limit.yaml');
    writeFileSync(policy, LIMIT);
    r = await startRehearsal({ env: { PAYOPS_POLICY_FILE: policy }, slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());

  /** `/pay payout` of `amount` to `account` as `userId`: its number and its card as posted. */
  async function payout(amount: string, account: string, userId: string, currency = 'USDC') {
    const fields = { ...PAYOUT, amount, currency, beneficiary_account: account };
    const answer = await ask(r, `payout ${fieldsText(fields)}`, { userId });
    const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    const card = r.slack
      .callsTo('chat.postMessage')
      .find((call) => (call.response as { ts?: string } | undefined)?.ts === ts);
    return {
      id,
      card: JSON.stringify(card?.args),
      needs: (await r.bot.store.get(id))?.requiredApprovals,
    };
  }

  it('past the limit, to another payee, a request needs more approvals and its card says which limit, with the sums', async () => {
    const first = await payout('600.00', '000111222333', 'U0ALICE');
    expect(first.needs).toBe(1);
    expect(first.card).not.toContain("requester's limit");

    const second = await payout('500', '000999888777', 'U0ALICE');
    expect(second.needs).toBe(2);
    expect(second.card).toContain(
      "*Over the requester's limit:* with 1 earlier request from the same requester to any payee in the last 24h, the total",
    );
    expect(second.card).toMatch(/1100\.00[^"]*USDC[^"]*is over the limit of[^"]*1000/);

    // Another requester has a limit of their own.
    expect((await payout('500', '000999888777', 'U0DAVE')).needs).toBe(1);
  });

  it('two requests at once under one limit: each sees the other, so the one stored second needs more', async () => {
    // Dave's first USD requests: 600 alone is within the limit, 1200 with the other is over it.
    const both = await Promise.all([
      payout('600', '000444555666', 'U0DAVE', 'USD'),
      payout('600', '000777888999', 'U0DAVE', 'USD'),
    ]);
    const stored = await Promise.all(both.map((request) => r.bot.store.get(request.id)));
    const second = stored.find((request) => request?.requiredApprovals === 2);
    expect(stored.map((request) => request?.requiredApprovals).sort()).toEqual([1, 2]);
    expect(second?.labels?.limitRaised).toEqual({
      window: '24h',
      total: '1200',
      currencies: ['USD'],
      limit: '1000',
      requests: 1,
    });
    expect(both.find((request) => request.id === second?.id)?.card).toContain(
      "Over the requester's limit",
    );
  });

  it('a limit that refuses: past it the request is not stored, and the requester is told the sums', async () => {
    expect((await payout('800', '000121212121', 'U0ALICE', 'EUR')).needs).toBe(1);
    const before = (await r.bot.store.listPending(100)).total;
    const fields = {
      ...PAYOUT,
      amount: '300',
      currency: 'EUR',
      beneficiary_account: '000343434343',
    };
    const answer = await ask(r, `payout ${fieldsText(fields)}`, { userId: 'U0ALICE' });
    expect(answer.shown).toContain(
      'Not requested, nothing stored:* with 1 earlier request of yours to any payee in the last 24h, the total 1100 EUR would be over the limit of 1000 one requester may request, and the policy refuses past it.',
    );
    expect((await r.bot.store.listPending(100)).total).toBe(before);
  });
});
