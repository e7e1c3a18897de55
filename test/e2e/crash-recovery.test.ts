import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PaymentsSandbox, startPaymentsSandbox } from '../../src/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/sandbox/slack.ts';
import type { Database } from '../../src/store/database.ts';
import { openPglite } from '../../src/store/pglite.ts';
import {
  cleanUpPayops,
  clickApprove,
  createPayoutCalls,
  payopsEnvironment,
  requestPayout,
  sleep,
  spawnPayops,
  startPayops,
} from '../helpers/bot-process.ts';
import { type Engine, engines, freshDatabase } from '../helpers/db.ts';

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

interface TestStore {
  /** How a payops process finds it. */
  env: Record<string, string>;
  /** Reads it from the test process, once no payops process holds it. */
  read<T>(work: (db: Database) => Promise<T>): Promise<T>;
  remove(): Promise<void>;
}

/** An empty store a process can open again after a crash: a PGlite folder, or a new database. */
async function storeOn(engine: Engine): Promise<TestStore> {
  if (engine === 'postgres') {
    const database = await freshDatabase('postgres');
    return {
      env: { DATABASE_URL: database.url as string },
      read: (work) => work(database.db),
      remove: () => database.drop(),
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'payops-crash-'));
  return {
    env: { PAYOPS_DATA_DIR: dataDir },
    async read(work) {
      const db = await openPglite(dataDir);
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    },
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A sandbox, a Slack emulation and a store for each test, torn down after it. */
function useParts(engine: Engine) {
  const parts = {} as { sandbox: PaymentsSandbox; slack: SlackEmulation; store: TestStore };
  beforeEach(async () => {
    [parts.sandbox, parts.slack, parts.store] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation(),
      storeOn(engine),
    ]);
  });
  afterEach(async (context) => {
    await cleanUpPayops(context.task.result?.state === 'fail');
    await Promise.all([parts.sandbox?.close(), parts.slack?.close(), parts.store?.remove()]);
  });
  return parts;
}

describe.each(engines())('crash recovery on %s', (engine) => {
  const parts = useParts(engine);

  it('a process killed while executing: after a restart the request is outcome unknown, reconciled, and never sent again', {
    timeout: 45_000,
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
    const sent = await slack.driver(restarted.eventsUrl).slashCommand({
      text: `request ${message.requestId}`,
      userId: 'U0BOB',
      channelId: 'C0PAYOPS',
    });
    const shown = JSON.stringify((await slack.nextResponse(sent.responseUrlId)).body);
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
  it('a process killed while Slack deliveries wait: after a restart each is delivered once', {
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

describe('the embedded store folder', () => {
  const parts = useParts('pglite');

  // Two processes start on PGlite: 14 s alone on a slow 2-core VM, past 20 s beside other suites.
  it('a second process on the same PAYOPS_DATA_DIR refuses to start, naming the data folder in use', {
    timeout: 45_000,
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

/** Resolves once the provider has received the payout's body (the call is then in flight). */
async function providerReceivesOnePayout(sandbox: PaymentsSandbox) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [received, ...more] = createPayoutCalls(sandbox);
    if (received) {
      expect(more).toEqual([]);
      return received;
    }
    await sleep(10);
  }
  throw new Error('the provider never received the approved payout');
}
