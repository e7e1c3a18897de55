import { describe, expect, it } from 'vitest';
import {
  clickApprove,
  createPayoutCalls,
  payopsEnvironment,
  requestPayout,
  sleep,
  spawnPayops,
  startPayops,
} from '../helpers/bot-process.ts';
import { providerReceivesOnePayout, useParts } from '../helpers/crash.ts';
import { engines } from '../helpers/db.ts';

/**
 * A payops process killed (SIGKILL) while its one call to the provider is in flight: the
 * request must come back as outcome unknown after the lease, be reconciled, and never be sent
 * again — on each engine the store runs on.
 */

const LEASE_MS = 2_500;
const TIMEOUTS = {
  PAYMENTS_WRITE_TIMEOUT_MS: '2000',
  PAYMENTS_TIMEOUT_MS: '1000',
  PAYOPS_EXECUTION_LEASE_MS: String(LEASE_MS),
};

describe.each(engines())('crash recovery on %s', (engine) => {
  const parts = useParts(engine);

  it('a process killed while executing: after a restart the request is outcome unknown, reconciled, and never sent again', {
    timeout: 90_000,
  }, async () => {
    const { sandbox, slack, store } = parts;
    const env = payopsEnvironment(sandbox, slack, { ...store.env, ...TIMEOUTS });
    const first = await startPayops('first', env);
    const driver = slack.driver(first.eventsUrl);
    const message = await requestPayout(slack, driver);
    sandbox.addFault({ kind: 'hang', operationId: 'createPayout' });

    await clickApprove(driver, message, 'U0BOB');
    const received = await providerReceivesOnePayout(sandbox);
    await first.crash();
    sandbox.clearFaults();
    await sleep(received.at + LEASE_MS + 500 - Date.now());

    const restarted = await startPayops('restarted', env);
    // The first sweep runs beside start-up (a slow provider must not hold it): ask until it has.
    const askAfterRestart = async () => {
      const sent = await slack.driver(restarted.eventsUrl).slashCommand({
        text: `request ${message.requestId}`,
        userId: 'U0BOB',
        channelId: 'C0PAYOPS',
      });
      return JSON.stringify((await slack.nextResponse(sent.responseUrlId)).body);
    };
    let shown = await askAfterRestart();
    for (let tries = 1; !shown.includes('payops reconciled') && tries < 20; tries++) {
      await sleep(500);
      shown = await askAfterRestart();
    }
    expect(shown).toContain(`Request #${message.requestId}: outcome unknown, do not resubmit`);
    expect(shown).toContain('payops reconciled');

    await restarted.stop();
    const stored = await store.read(async (db) => ({
      requests: await db.query('select status, outcome from payment_requests'),
      events: await db.query('select event from audit_log where request_id = $1 order by id', [
        message.requestId,
      ]),
    }));
    // Recovered by the lease (its message), not by the killed process's own write timeout.
    expect(stored.requests).toEqual([
      {
        status: 'unknown',
        outcome: { message: 'its execution outlived the lease: payops stopped, or the call hung' },
      },
    ]);
    expect(stored.events.map((row) => row.event)).toEqual([
      'requested',
      'approved',
      'claimed',
      'unknown',
      'reconciled',
    ]);
    expect(createPayoutCalls(sandbox)).toHaveLength(1);
  });
});

describe('the embedded store folder', () => {
  const parts = useParts('pglite');

  // Two processes each start on PGlite, slow on a shared machine: a longer timeout than usual
  // (a new folder is made in a child process, about 20 s while the suite loads both cores).
  it('a second process on the same PAYOPS_DATA_DIR refuses to start, naming the data folder in use', {
    timeout: 90_000,
  }, async () => {
    const { sandbox, slack, store } = parts;
    const env = payopsEnvironment(sandbox, slack, store.env);
    const first = await startPayops('first', env);
    const second = await spawnPayops('second', env);

    const outcome = await Promise.race([second.exited, second.ready().then(() => 'ready')]);
    expect(outcome).toEqual({ code: 1, signal: null });
    expect(second.output()).toContain(
      `The data folder ${env.PAYOPS_DATA_DIR} is in use by another payops process (pid ${first.pid})`,
    );
    await first.ready();
  });
});
