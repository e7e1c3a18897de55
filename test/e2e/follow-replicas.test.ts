import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import {
  cleanUpPayops,
  clickApprove,
  payopsEnvironment,
  requestPayout,
  sleep,
  startPayops,
} from '../helpers/bot-process.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

/**
 * Two payops replicas on one PostgreSQL both follow the submitted payout: each change of its
 * status at the provider is told once in its thread, in order, and following stops at a final
 * status.
 */

const onPostgres = engines().includes('postgres');
const INTERVAL_MS = 100;

describe.skipIf(!onPostgres)('two replicas following one payout', () => {
  let sandbox: PaymentsSandbox;
  let slack: SlackEmulation;
  let database: TestDatabase;

  beforeAll(async () => {
    [sandbox, slack, database] = await Promise.all([
      // Statuses move only when the test says.
      startPaymentsSandbox({ statusStepMs: 3_600_000 }),
      startSlackEmulation(),
      freshDatabase('postgres'),
    ]);
  });
  afterEach((context) => cleanUpPayops(context.task.result?.state === 'fail'));
  afterAll(async () => {
    await Promise.all([sandbox?.close(), slack?.close(), database?.drop()]);
  });

  it('tells each change once, in order, watches a success for a return, and stops at a failure', {
    timeout: 60_000,
  }, async () => {
    const env = payopsEnvironment(sandbox, slack, {
      DATABASE_URL: database.url as string,
      PAYOPS_FOLLOW_INTERVAL_MS: String(INTERVAL_MS),
    });
    const [a, b] = await Promise.all([startPayops('A', env), startPayops('B', env)]);
    const message = await requestPayout(slack, slack.driver(a.eventsUrl));
    await clickApprove(slack.driver(b.eventsUrl), message, 'U0BOB');
    const thread = () =>
      slack
        .channel(message.channel)
        .messages.filter((reply) => reply.thread_ts === message.ts)
        .map((reply) => reply.text);
    await slack.waitFor(() => thread().length === 1, {
      timeoutMs: 15_000,
      description: 'the payout submitted',
    });
    const [row] = await database.db.query<{ provider_id: string }>(
      "select outcome->>'providerId' as provider_id from payment_requests",
    );
    const payoutId = row?.provider_id as string;

    for (const status of ['processing', 'in_review', 'settled', 'reversed']) {
      expect(sandbox.setRecordStatus(payoutId, status)).toBe(true);
      await slack.waitFor(() => thread().some((text) => text.includes(`→ \`${status}\``)), {
        timeoutMs: 15_000,
        description: `the change to ${status} told`,
      });
    }
    // Both replicas keep looking for a while: nothing more is told, and no list is read.
    await sleep(INTERVAL_MS * 10);
    const reads = sandbox.requests.filter((r) => r.operationId === 'listPayouts').length;
    sandbox.setRecordStatus(payoutId, 'completed');
    await sleep(INTERVAL_MS * 10);
    expect(sandbox.requests.filter((r) => r.operationId === 'listPayouts').length).toBe(reads);

    const told = thread();
    expect(told).toEqual([
      expect.stringContaining('submitted to the provider (not settled)'),
      expect.stringContaining('`pending` → `processing`'),
      expect.stringContaining('`processing` → `in_review`'),
      expect.stringContaining('`in_review` → `settled`. It is a success'),
      expect.stringContaining(
        ':x: Provider status changed: `settled` → `reversed`. The payment came back',
      ),
    ]);
    const [follow] = await database.db.query<{ stopped_reason: string; changes: unknown }>(
      `select stopped_reason, (select count(*) from audit_log where event = 'provider_status') as changes
         from follow_ups`,
    );
    expect(follow).toEqual({ stopped_reason: 'final_status', changes: expect.anything() });
    expect(Number(follow?.changes)).toBe(4);
  });
});
