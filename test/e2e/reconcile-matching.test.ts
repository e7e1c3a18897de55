import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  REHEARSAL_APPROVALS_CHANNEL,
  type Rehearsal,
  startRehearsal,
} from '../../src/rehearsal/rehearsal.ts';
import { PROFILES, SANDBOX_KEY } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

/** A payout requested as alice in Slack: its number and approval message. */
async function requestPayout(r: Rehearsal, amount: string): Promise<{ id: number; ts: string }> {
  const text = Object.entries({ ...PAYOUT, amount })
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ');
  const answer = await ask(r, `payout ${text}`, { userId: 'U0ALICE' });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  return { id, ts: await approvalMessageTs(r, id, REHEARSAL_APPROVALS_CHANNEL) };
}

/** Bob approves; the provider executes the payout and the connection drops before its answer. */
async function approveAndDrop(r: Rehearsal, ts: string): Promise<void> {
  r.sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
  await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: REHEARSAL_APPROVALS_CHANNEL, ts },
  });
}

/** Bob approves, as Slack sends his click. */
async function approve(r: Rehearsal, ts: string): Promise<void> {
  await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: REHEARSAL_APPROVALS_CHANNEL, ts },
  });
}

/** The approval card once its reconciliation shows, as posted to Slack. */
async function cardShowing(r: Rehearsal, ts: string, pattern: RegExp): Promise<string> {
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && pattern.test(JSON.stringify(call.args)),
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(update.args);
}

/** Straight to the provider, as someone at its dashboard would. */
async function providerCall(r: Rehearsal, method: string, path: string, body?: unknown) {
  const response = await fetch(`${r.sandbox.url}${path}`, {
    method,
    headers: { 'X-Api-Key': SANDBOX_KEY.full, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as { data: unknown[] };
}

describe('reconciling a dropped payout against a list shown as a real provider shows it', () => {
  let r: Rehearsal;
  /** Each shape's payout has an amount of its own. */
  let payoutShapes = 10;
  beforeAll(async () => {
    r = await startRehearsal({ slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());
  afterEach(() => {
    r.sandbox.clearFaults();
    r.sandbox.setProfile('default');
  });

  it('finds it on the second page, the account shown as its last four digits, the amount as 33.3', async () => {
    const { id, ts } = await requestPayout(r, '33.30');
    // Oldest first, a page as long as the payouts already made: the new one opens page 2.
    const made = (await providerCall(r, 'GET', '/payouts')).data.length;
    r.sandbox.setListView({
      pageSize: made,
      order: 'oldest_first',
      bankingNumbers: 'last4',
      shortAmounts: true,
    });
    await approveAndDrop(r, ts);

    const card = await cardShowing(r, ts, /found\* a matching operation/);
    expect(card).toContain('beneficiary_account shown only in part');
    expect(card).not.toContain('000123456789');
    const stored = await r.bot.store.get(id);
    expect(stored?.status).toBe('unknown');
    expect(stored?.reconciliation).toMatchObject({ result: 'found', providerStatus: 'pending' });
    r.sandbox.setListView({});
    const listed = (await providerCall(r, 'GET', '/payouts')).data;
    expect(listed).toHaveLength(made + 1);
    const newest = listed[0];
    expect(newest).toMatchObject({ id: stored?.reconciliation?.providerId, amount: '33.30' });
    const reads = r.sandbox.requests.filter((entry) => entry.operationId === 'listPayouts');
    expect(reads.some((entry) => entry.query.cursor !== undefined)).toBe(true);
    expect(r.sandbox.requests.filter((entry) => entry.operationId === 'createPayout')).toHaveLength(
      1,
    );
  });

  it.each([
    [
      'under a name of its own, masked as XX-6789',
      (last4: string) => ({
        payee_acct_masked: `XX-${last4}`,
      }),
      'beneficiary_account shown only in part',
    ],
    [
      'nested as destination.last_four',
      (last4: string) => ({
        destination: { type: 'ach', last_four: last4 },
      }),
      'beneficiary_account shown only in part',
    ],
    [
      'deeper, abbreviated, masked by one star',
      (last4: string) => ({
        counterparty: { bank_account: { acct_no: `*${last4}`, rtg_hint: '…0021' } },
      }),
      'beneficiary_account, beneficiary_routing shown only in part',
    ],
  ])('finds it with the account shown %s', async (_how, shape, partly) => {
    const amount = `41.${payoutShapes++}`;
    const { id, ts } = await requestPayout(r, amount);
    // A provider of the test's own: the default one, showing the account in this shape.
    r.sandbox.setProfile({
      ...PROFILES.default,
      record: (movement) => {
        const {
          beneficiary_account,
          beneficiary_routing: _routing,
          ...record
        } = PROFILES.default.record(movement);
        return typeof beneficiary_account === 'string'
          ? { ...record, ...shape(beneficiary_account.slice(-4)) }
          : record;
      },
    });
    await approveAndDrop(r, ts);

    const card = await cardShowing(r, ts, /found\* a matching operation/);
    expect(card).toContain(partly);
    const stored = await r.bot.store.get(id);
    expect(stored?.reconciliation).toMatchObject({ result: 'found', providerStatus: 'pending' });
    r.sandbox.setListView({});
    const listed = (await providerCall(r, 'GET', '/payouts')).data as Array<Record<string, string>>;
    const own = listed.filter((payout) => payout.amount === amount);
    expect(own.map((payout) => payout.id)).toEqual([stored?.reconciliation?.providerId]);
  });

  it('never gives a write that failed the payout another request made: it stays not found, and an approver may say not executed', async () => {
    const payoutsMade = () =>
      r.sandbox.requests.filter((entry) => entry.operationId === 'createPayout' && entry.executed)
        .length;
    const before = payoutsMade();
    // Two payouts of 410.00 to one supplier: the first is submitted and listed.
    const first = await requestPayout(r, '410.00');
    await approve(r, first.ts);
    await cardShowing(r, first.ts, /Submitted to the provider/);
    expect((await r.bot.store.get(first.id))?.status).toBe('submitted');
    // The second gets a 502 and was not executed, which payops cannot know: it reconciles.
    const second = await requestPayout(r, '410.00');
    r.sandbox.addFault({ kind: 'status', status: 502, operationId: 'createPayout', times: 1 });
    await approve(r, second.ts);

    await cardShowing(r, second.ts, /not found yet/);
    const stored = await r.bot.store.get(second.id);
    expect(stored?.status).toBe('unknown');
    expect(stored?.reconciliation).toMatchObject({ result: 'not_found' });
    expect(stored?.reconciliation?.providerId).toBeUndefined();
    const resolved = await ask(r, `resolve ${second.id} not-executed no second payout listed`, {
      userId: 'U0BOB',
    });
    expect(resolved.shown).toContain('recorded as not executed');
    expect(payoutsMade() - before).toBe(1);
  });

  it('reports ambiguity when another payout matches it equally, and guesses nothing', async () => {
    const { id, ts } = await requestPayout(r, '44.40');
    // The same payout made at the provider's dashboard meanwhile.
    await providerCall(r, 'POST', '/payouts', { ...PAYOUT, amount: '44.40' });
    r.sandbox.setListView({ pageSize: 2, bankingNumbers: 'masked', shortAmounts: true });
    await approveAndDrop(r, ts);

    const card = await cardShowing(
      r,
      ts,
      /not proven\* — what the provider shows could be this one/,
    );
    expect(card).toMatch(/2 records among \d+ records on \d+ pages of \/payouts match it equally/);
    const stored = await r.bot.store.get(id);
    expect(stored?.reconciliation).toMatchObject({ result: 'ambiguous' });
    expect(stored?.reconciliation?.providerId).toBeUndefined();
  });
});
