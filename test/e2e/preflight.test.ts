import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { createPayoutCalls } from '../helpers/bot-process.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

/**
 * Issue 26, section 2: what payops checks by reading before an approver is asked, and the
 * balance read again right before a payout is sent.
 */

const PETTY = SANDBOX_IDS.wallet.polygonPetty; // holds 42.75 USDC
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

function payout(overrides: Record<string, string>): string {
  return payoutCommand({ ...PAYOUT, wallet_id: PETTY, ...overrides });
}

async function storedCount(r: Rehearsal): Promise<number> {
  return (await r.bot.store.listPending(1_000)).total;
}

/** The blocks of request `id`'s approval card as first posted. */
async function cardOf(r: Rehearsal, id: number): Promise<{ ts: string; text: string }> {
  const ts = await approvalMessageTs(r, id);
  const posted = r.slack.calls.find(
    (call) => call.response && 'ts' in call.response && call.response.ts === ts,
  );
  return { ts, text: JSON.stringify(posted?.args.blocks) };
}

function requestIdIn(shown: string): number {
  const id = Number(/Request #(\d+)/.exec(shown)?.[1]);
  expect(id, shown).toBeGreaterThan(0);
  return id;
}

describe('pre-flight checks (warn)', () => {
  let r: Rehearsal;
  beforeAll(async () => {
    r = await startRehearsal({ slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());

  it('a wallet that does not exist is refused with the reason, and nothing is stored', async () => {
    const before = await storedCount(r);
    const answer = await ask(r, payout({ wallet_id: 'wal_does_not_exist' }));
    expect(answer.shown).toContain('Not requested, nothing stored');
    expect(answer.shown).toContain('the provider has no wallet wal_does_not_exist');
    expect(await storedCount(r)).toBe(before);
  });

  it('an amount above the available balance is a warning on the card; the checks that passed say so', async () => {
    const id = requestIdIn(
      (await ask(r, payout({ amount: '50.00', beneficiary_account: '000111222333' }))).shown,
    );
    const { text } = await cardOf(r, id);
    expect(text).toContain('42.75 USDC available, less than the 50.00 requested');
    expect(text).toContain(`${PETTY} exists`);
  });

  it('a balance that fell below the amount before execution: nothing was sent, no provider write', async () => {
    const first = requestIdIn(
      (await ask(r, payout({ amount: '40.00', beneficiary_account: '000444555666' }))).shown,
    );
    const second = requestIdIn(
      (await ask(r, payout({ amount: '40.00', beneficiary_account: '000777888999' }))).shown,
    );
    const [a, b] = [await cardOf(r, first), await cardOf(r, second)];
    expect(b.text).toContain('42.75 USDC available');
    const approve = (ts: string) =>
      r.driver.blockAction({
        userId: 'U0BOB',
        actionId: ACTION.approve,
        message: { channel: 'C0APPROVALS', ts },
      });
    await approve(a.ts);
    await r.slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === a.ts && /submitted/i.test(String(call.args.text)),
    );
    const calls = createPayoutCalls(r.sandbox).length;
    await approve(b.ts);
    const update = await r.slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === b.ts && /nothing was sent/i.test(JSON.stringify(call.args)),
    );
    expect(JSON.stringify(update.args)).toContain('balance is now too low');
    expect(createPayoutCalls(r.sandbox)).toHaveLength(calls);
    expect((await r.bot.store.get(second))?.status).toBe('failed');
  });
  it('a currency typed in another case than the balance lists is said on the card, not passed', async () => {
    const id = requestIdIn(
      (await ask(r, payout({ currency: 'usdc', beneficiary_account: '000999000999' }))).shown,
    );
    const { text } = await cardOf(r, id);
    expect(text).toContain('is in USDC; the payout says usdc, which is not the same text');
    expect(text).not.toContain('USDC available');
  });
});

/** Approves request `id` from its card as bob, and returns the card's update once it settles. */
async function approvedCard(r: Rehearsal, id: number): Promise<string> {
  const { ts } = await cardOf(r, id);
  await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: 'C0APPROVALS', ts },
  });
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) =>
      call.args.ts === ts && /submitted|refused|nothing was sent/i.test(JSON.stringify(call.args)),
  );
  return JSON.stringify(update.args);
}

describe('pre-flight checks (strict)', () => {
  let r: Rehearsal;
  beforeAll(async () => {
    r = await startRehearsal({ slack: { rateLimits: 'off' }, env: { PAYOPS_PREFLIGHT: 'strict' } });
  });
  afterAll(() => r.close());

  it('an amount above the available balance is refused, nothing stored', async () => {
    const before = await storedCount(r);
    const answer = await ask(r, payout({ amount: '50.00' }));
    expect(answer.shown).toContain('42.75 USDC available, less than the 50.00 requested');
    expect(answer.shown).toContain('Not requested, nothing stored');
    expect(await storedCount(r)).toBe(before);
  });

  it('a USD payout from a wallet listing only USDC is not refused: it is sent once, as approved', async () => {
    const before = createPayoutCalls(r.sandbox).length;
    const answer = await ask(r, payout({ currency: 'USD', beneficiary_account: '000555000555' }));
    const id = requestIdIn(answer.shown);
    const { text } = await cardOf(r, id);
    expect(text).toContain(
      'the wallet holds 42.75 USDC; the payout is in USD: payops cannot compare them',
    );
    const update = await approvedCard(r, id);
    expect(update).not.toContain('balance is now too low');
    // Decided, the card tells what happened; the notes for the approver are gone.
    expect(update).not.toContain('Checked when requested');
    const sent = createPayoutCalls(r.sandbox).slice(before);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({
      currency: 'USD',
      amount: PAYOUT.amount,
    });
  });
});
