import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { OVERLOADED_TEXT } from '../../src/slack/app.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { ask } from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const BALANCE = `balance ${SANDBOX_IDS.wallet.ethereumOps}`;
const SLOW_PROVIDER_MS = 1_500;

/**
 * The engine's backlog is bounded: with PAYOPS_MAX_BACKLOG=2 and two reads held up by a slow
 * provider, a third command and an Approve click are answered "overloaded" by the ingress, and
 * neither reaches the provider nor the store.
 */
describe('a full engine backlog', () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal({ env: { PAYOPS_MAX_BACKLOG: '2' } });
  });
  afterAll(() => r.close());

  it('sheds commands and clicks with a clear answer, does nothing, and recovers', async () => {
    const requested = await ask(
      r,
      'payout wallet_id=wal_acme_sol_treasury amount=1.00 currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach',
    );
    const id = Number(/Request #(\d+)/.exec(String(requested.body.text))?.[1]);
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && String(call.args.text).startsWith(`#${id} `),
    );
    const cardTs = (card.response as unknown as { ts: string }).ts;

    r.sandbox.setLatency(SLOW_PROVIDER_MS);
    try {
      const held = [ask(r, BALANCE, { timeoutMs: 10_000 }), ask(r, BALANCE, { timeoutMs: 10_000 })];
      // Both reads are now with the engine (their acks came back before this line runs).
      await new Promise((resolve) => setTimeout(resolve, 200));
      const providerCallsBefore = r.sandbox.requests.length;

      const command = await r.driver.slashCommand({
        text: BALANCE,
        userId: 'U0ALICE',
        channelId: 'C0PAYOPS',
      });
      expect(command.status).toBe(200);
      expect(JSON.parse(command.body)).toEqual({
        response_type: 'ephemeral',
        text: OVERLOADED_TEXT,
      });

      const approve = await r.driver.blockAction({
        userId: 'U0BOB',
        actionId: ACTION.approve,
        value: String(id),
        message: { channel: APPROVALS, ts: cardTs },
      });
      expect(approve.status).toBe(200);
      const told = await r.slack.nextResponse(approve.responseUrlId as string);
      expect((told.body as { text?: unknown }).text).toBe(OVERLOADED_TEXT);

      expect(r.sandbox.requests.length).toBe(providerCallsBefore);
      expect((await r.bot.store.get(id))?.approvals).toEqual([]);
      for (const answer of await Promise.all(held)) expect(answer.shown).toContain('1,250.50');
    } finally {
      r.sandbox.setLatency(0);
    }

    // Once the backlog has drained, requests are worked on again.
    const after = await ask(r, BALANCE);
    expect(after.shown).toContain('1,250.50');
  }, 20_000);
});
