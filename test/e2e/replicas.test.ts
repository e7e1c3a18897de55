import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadStoreToolConfig } from '../../src/config.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import {
  type SlackDriver,
  type SlackEmulation,
  startSlackEmulation,
} from '../../src/rehearsal/sandbox/slack.ts';
import { PayloadCipher } from '../../src/store/payload-cipher.ts';
import {
  cleanUpPayops,
  clickApprove,
  createPayoutCalls,
  payopsEnvironment,
  requestPayout,
  sleep,
  startPayops,
} from '../helpers/bot-process.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

/**
 * Several payops replicas may share one PostgreSQL: the claim in the database, not any
 * process's memory, decides which click makes the one call to the provider.
 */

const onPostgres = engines().includes('postgres');
if (!onPostgres)
  console.warn(
    'replicas.test.ts is skipped: replicas sharing a database need PostgreSQL (TEST_DATABASE_URL)',
  );

const CLICKS_PER_PROCESS = 100;
const APPROVERS = ['U0BOB', 'U0CAROL'];

describe.skipIf(!onPostgres)('two payops processes sharing one PostgreSQL', () => {
  let sandbox: PaymentsSandbox;
  let slack: SlackEmulation;
  let database: TestDatabase;

  beforeAll(async () => {
    [sandbox, slack, database] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation(),
      freshDatabase('postgres'),
    ]);
  });
  afterEach((context) => cleanUpPayops(context.task.result?.state === 'fail'));
  afterAll(async () => {
    await Promise.all([sandbox?.close(), slack?.close(), database?.drop()]);
  });

  it('200 Approve clicks split between them make exactly one call to the provider, with the approved bytes', {
    timeout: 45_000,
  }, async () => {
    const env = payopsEnvironment(sandbox, slack, { DATABASE_URL: database.url as string });
    const [a, b] = await Promise.all([startPayops('A', env), startPayops('B', env)]);
    const drivers = [a, b].map((replica) => slack.driver(replica.eventsUrl));
    const message = await requestPayout(slack, slack.driver(a.eventsUrl));

    const clicks = await Promise.all(
      drivers.flatMap((driver) =>
        Array.from({ length: CLICKS_PER_PROCESS }, (_, index) =>
          clickApprove(driver, message, APPROVERS[index % APPROVERS.length] as string),
        ),
      ),
    );
    expect(clicks.every((click) => click.status === 200)).toBe(true);
    // Every click ends visibly: one that executed tells the requester in the message's thread,
    // any other is answered privately with why it did not count.
    const answered = () =>
      clicks.filter((click) => slack.responsesTo(click.responseUrlId ?? '')[0]);
    const threadReplies = () =>
      slack.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === message.ts);
    await slack.waitFor(() => answered().length + threadReplies().length >= clicks.length, {
      timeoutMs: 20_000,
      description: 'an end to every click',
    });
    expect(threadReplies()).toHaveLength(1);
    expect(answered()).toHaveLength(clicks.length - 1);
    for (const click of answered()) {
      expect(JSON.stringify(slack.responsesTo(click.responseUrlId ?? '')[0]?.body)).toContain(
        'can no longer be approved',
      );
    }

    const [request] = await database.db.query<{ status: string; body: string }>(
      'select status, body from payment_requests',
    );
    expect(request?.status).toBe('submitted');
    const calls = createPayoutCalls(sandbox);
    expect(calls).toHaveLength(1);
    // Stored encrypted; what the provider got is what it holds.
    const cipher = new PayloadCipher(loadStoreToolConfig(env).encryption);
    expect(calls[0]?.body).toBe(cipher.open(request?.body ?? ''));
    const approvals = await database.db.query<{ approver_id: string }>(
      'select approver_id from approvals',
    );
    expect(approvals).toEqual([{ approver_id: expect.stringMatching(/^U0(BOB|CAROL)$/) }]);
  });

  it('a signed command or click replayed to the other replica is acknowledged and does nothing', {
    timeout: 45_000,
  }, async () => {
    const env = payopsEnvironment(sandbox, slack, { DATABASE_URL: database.url as string });
    const [a, b] = await Promise.all([startPayops('A', env), startPayops('B', env)]);
    const [toA, toB] = [a, b].map((replica) => slack.driver(replica.eventsUrl)) as [
      SlackDriver,
      SlackDriver,
    ];
    const frozen = async () =>
      (await database.db.query<{ frozen: boolean }>('select frozen from freeze_state'))[0]?.frozen;
    const command = (text: string) =>
      toA.slashCommand({ text, userId: 'U0BOB', channelId: 'C0PAYOPS' });
    const freeze = await command('freeze replay drill');
    await slack.nextResponse(freeze.responseUrlId);
    await slack.nextResponse((await command('unfreeze')).responseUrlId);
    expect(await frozen()).toBe(false);

    const paidBefore = createPayoutCalls(sandbox).length;
    const message = await requestPayout(slack, toA);
    const click = await clickApprove(toA, message, 'U0BOB');
    // Its outcome told in the card's thread: the click has been worked on in full.
    await slack.waitFor(
      () => slack.callsTo('chat.postMessage').some((call) => call.args.thread_ts === message.ts),
      { timeoutMs: 10_000, description: 'the outcome in the thread' },
    );
    expect(createPayoutCalls(sandbox)).toHaveLength(paidBefore + 1);
    const answersToClick = slack.responsesTo(click.responseUrlId ?? '').length;

    // Each replica remembers what it took; only the shared record knows what the other took.
    expect(await toB.replay(freeze.request)).toMatchObject({ status: 200 });
    expect(await toB.replay(click.request)).toMatchObject({ status: 200 });
    await sleep(1_000);
    expect(await frozen()).toBe(false);
    expect(slack.responsesTo(freeze.responseUrlId)).toHaveLength(1);
    expect(slack.responsesTo(click.responseUrlId ?? '')).toHaveLength(answersToClick);
    expect(createPayoutCalls(sandbox)).toHaveLength(paidBefore + 1);
    expect(b.output()).toMatch(/replayed Slack request was acknowledged/);
  });
});
