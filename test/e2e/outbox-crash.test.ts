import { describe, expect, it } from 'vitest';
import {
  clickApprove,
  createPayoutCalls,
  payopsEnvironment,
  requestPayout,
  startPayops,
} from '../helpers/bot-process.ts';
import { providerReceivesOnePayout, useParts } from '../helpers/crash.ts';
import { engines } from '../helpers/db.ts';

/**
 * A payops process killed (SIGKILL) while its Slack deliveries wait (Slack failing): after a
 * restart on the same store, every card, confirmation and outcome is delivered once.
 */
describe.each(engines())('the Slack outbox across a crash on %s', (engine) => {
  const parts = useParts(engine);

  it('each waiting delivery is made once after a restart', {
    timeout: 60_000,
  }, async () => {
    const { sandbox, slack, store } = parts;
    const env = payopsEnvironment(sandbox, slack, store.env);
    const first = await startPayops('first', env);
    const driver = slack.driver(first.eventsUrl);
    const approved = await requestPayout(slack, driver);

    // Slack fails every chat.* call: the outcome and two new requests' cards wait in the outbox.
    const endOutage = slack.outage(/^chat\./);
    await clickApprove(driver, approved, 'U0BOB');
    await providerReceivesOnePayout(sandbox);
    const asked = await Promise.all(
      ['26.00', '27.00'].map((amount) =>
        driver.slashCommand({
          text: `payout wallet_id=wal_acme_eth_ops amount=${amount} currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`,
          userId: 'U0ALICE',
          channelId: 'C0PAYOPS',
        }),
      ),
    );
    await slack.waitFor(
      () =>
        slack.calls.filter((call) => call.method === 'chat.postMessage' && call.status === 500)
          .length >= 3,
      { description: 'the outbox trying and failing', timeoutMs: 10_000 },
    );
    await first.crash();
    endOutage();

    const restarted = await startPayops('restarted', env);
    for (const sent of asked) {
      const confirmation = await slack.nextResponse(sent.responseUrlId, { timeoutMs: 30_000 });
      expect(JSON.stringify(confirmation.body)).toContain('Its approval card is posted');
    }
    await slack.waitFor(
      () =>
        slack.channel('C0APPROVALS').messages.some((message) => message.thread_ts === approved.ts),
      { description: 'the outcome told in its thread', timeoutMs: 30_000 },
    );
    // The redraw is its own delivery: the dead process may still hold its claim for a lease.
    await slack.waitFor(
      () => JSON.stringify(slack.message('C0APPROVALS', approved.ts)).includes('Submitted'),
      { description: 'the card redrawn with the outcome', timeoutMs: 30_000 },
    );
    await restarted.stop();

    const messages = slack.channel('C0APPROVALS').messages;
    const cards = messages.filter((message) => message.thread_ts === undefined);
    expect(cards).toHaveLength(3);
    expect(messages.filter((message) => message.thread_ts === approved.ts)).toHaveLength(1);
    for (const sent of asked) expect(slack.responsesTo(sent.responseUrlId)).toHaveLength(1);
    expect(JSON.stringify(slack.message('C0APPROVALS', approved.ts))).toContain('Submitted');
    expect(createPayoutCalls(sandbox)).toHaveLength(1);
  });
});
