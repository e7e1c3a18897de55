import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditPolicy } from '../../src/app/policy-audit.ts';
import { DEFAULT_POLICY, parsePolicy } from '../../src/domain/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { ANNOUNCEMENT_EVENT, CARD_EVENT, SlackOutbox } from '../../src/slack/outbox.ts';
import { SlackRateLimiter } from '../../src/slack/rate-limits.ts';
import { OutboxStore } from '../../src/store/outbox-store.ts';
import { PolicyStore } from '../../src/store/policy-store.ts';
import { RateBucketsStore } from '../../src/store/rate-buckets-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { newRequest, testCipher } from '../helpers/requests.ts';

/**
 * The dispatcher against a real store and the Slack emulation over HTTP: what happens to a
 * delivery whose sender died mid-post, and to one delivery raced by two senders.
 */

const APPROVALS = 'C0APPROVALS';

describe.each(engines())('the Slack outbox dispatcher on %s', (engine) => {
  let database: TestDatabase;
  let slack: SlackEmulation;
  let requests: RequestStore;
  let outbox: OutboxStore;
  const running: SlackOutbox[] = [];

  beforeAll(async () => {
    database = await freshDatabase(engine);
    requests = new RequestStore(database.db, testCipher);
    outbox = new OutboxStore(database.db);
  });
  afterAll(() => database.drop());
  beforeEach(async () => {
    slack = await startSlackEmulation({ rateLimits: 'off' });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((dispatcher) => dispatcher.stop()));
    await slack.close();
  });

  function dispatcher(instanceId: string, claimLeaseMs = 200): SlackOutbox {
    const dispatch = new SlackOutbox({
      store: outbox,
      current: async (id) => {
        const found = await requests.getWithFreeze(id);
        return found && { request: found.request, freeze: undefined };
      },
      client: new WebClient(slack.config.botToken, {
        slackApiUrl: slack.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      }),
      botId: slack.config.botId,
      approvalsChannelId: APPROVALS,
      command: '/pay',
      approvers: { role: 'approver', users: new Set(), groups: new Set() },
      // Slack's limits are off here: what is tested is who posts, not how fast.
      limiter: new SlackRateLimiter(new RateBucketsStore(database.db), 100),
      logger: createLogger({ level: 'silent', secrets: [] }),
      instanceId,
      claimLeaseMs,
    });
    running.push(dispatch);
    return dispatch;
  }

  /** A new request whose card delivery a process claimed for 100 ms, then died. */
  async function requestClaimedByADeadSender() {
    const { id } = await requests.create(newRequest());
    const [claimed] = await outbox.claim(
      (await outbox.due(50)).filter((d) => d.requestId === id).map((d) => d.id),
      'dead-process',
      100,
    );
    return { id, claimed };
  }

  function cardsOf(requestId: number) {
    return slack
      .channel(APPROVALS)
      .messages.filter(
        (message) =>
          (message.metadata as { event_payload?: { request_id?: unknown } } | undefined)
            ?.event_payload?.request_id === requestId,
      );
  }

  it('a card whose sender died after Slack posted it is found by its metadata, never posted twice', async () => {
    // The dead sender: it claimed the card, Slack posted it, and it never recorded the answer.
    const { id, claimed } = await requestClaimedByADeadSender();
    expect(claimed?.kind).toBe('card');
    const posted = await new WebClient(slack.config.botToken, {
      slackApiUrl: slack.apiUrl,
    }).chat.postMessage({
      channel: APPROVALS,
      text: 'the card, as the dead process posted it',
      metadata: { event_type: CARD_EVENT, event_payload: { request_id: id } },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));

    dispatcher('survivor').start();
    await expect
      .poll(async () => (await requests.get(id))?.messageTs, { timeout: 5_000 })
      .toBe(posted.ts);
    expect(cardsOf(id)).toHaveLength(1);
    expect(slack.callsTo('conversations.history').length).toBeGreaterThanOrEqual(1);
    const card = (await outbox.ofRequest(id)).find((d) => d.kind === 'card');
    expect(card?.state).toBe('delivered');
  });

  it("a message with the card's metadata that payops's bot did not post is not taken for the card: the card is posted", async () => {
    const { id } = await requestClaimedByADeadSender();
    const metadata = { event_type: CARD_EVENT, event_payload: { request_id: id } };
    const lookalikes = [
      slack.postAs({ user: 'U0MALLORY' }, APPROVALS, { text: 'a member’s lookalike', metadata }),
      slack.postAs({ user: 'U0OTHERBOT', bot_id: 'BOTHERAPP', app_id: 'AOTHERAPP' }, APPROVALS, {
        text: 'another app’s lookalike',
        metadata,
      }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 150));

    dispatcher('survivor').start();
    await expect
      .poll(async () => (await requests.get(id))?.messageTs, { timeout: 5_000 })
      .toBeTruthy();
    expect(slack.callsTo('conversations.history').length).toBeGreaterThanOrEqual(1);
    const cardTs = (await requests.get(id))?.messageTs ?? '';
    expect(lookalikes.map((message) => message.ts)).not.toContain(cardTs);
    expect(slack.message(APPROVALS, cardTs)?.author).toBeUndefined();
    expect(cardsOf(id)).toHaveLength(3);
  });

  it('a card whose sender died before posting is posted once by another', async () => {
    const { id } = await requestClaimedByADeadSender();
    await new Promise((resolve) => setTimeout(resolve, 150));
    dispatcher('survivor').start();
    await expect
      .poll(async () => (await requests.get(id))?.messageTs, { timeout: 5_000 })
      .toBeTruthy();
    expect(cardsOf(id)).toHaveLength(1);
  });

  it('a live sender keeps its claim while Slack is slow: the other never posts the same card', async () => {
    const { id } = await requests.create(newRequest());
    // Slack takes 1.8 s to answer; a claim lasts 300 ms unless its holder renews it.
    slack.delayNext('chat.postMessage', 1_800, { times: 5 });
    dispatcher('A', 300).start();
    dispatcher('B', 300).start();
    await expect
      .poll(async () => (await requests.get(id))?.messageTs, { timeout: 10_000 })
      .toBeTruthy();
    // Any second post taken up meanwhile would land within Slack's 1.8 s.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(cardsOf(id)).toHaveLength(1);
  });

  it('two dispatchers on one store deliver each of 30 cards once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await requests.create(newRequest())).id);
    dispatcher('A').start();
    dispatcher('B').start();
    await expect
      .poll(
        async () =>
          (await Promise.all(ids.map((id) => requests.get(id)))).every((r) => r?.messageTs),
        {
          timeout: 10_000,
        },
      )
      .toBe(true);
    for (const id of ids) expect(cardsOf(id)).toHaveLength(1);
  });

  it('an announcement of no request whose sender died after Slack posted it is found by its metadata, never posted twice', async () => {
    const policies = new PolicyStore(database.db);
    await auditPolicy(policies, DEFAULT_POLICY);
    await auditPolicy(policies, parsePolicy('default_approvals: 2', 'policy.yaml'));
    const due = (await outbox.due(50)).filter((d) => d.kind === 'announcement');
    const [claimed] = await outbox.claim(
      due.map((d) => d.id),
      'dead-process',
      100,
    );
    expect(claimed).toMatchObject({ requestId: undefined, event: 'policy_changed' });
    const id = claimed?.id as number;
    await new WebClient(slack.config.botToken, { slackApiUrl: slack.apiUrl }).chat.postMessage({
      channel: APPROVALS,
      text: 'the announcement, as the dead process posted it',
      metadata: { event_type: ANNOUNCEMENT_EVENT, event_payload: { delivery_id: id } },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));

    dispatcher('survivor').start();
    const state = async () =>
      (
        await database.db.query<{ state: string }>('select state from slack_outbox where id = $1', [
          id,
        ])
      )[0]?.state;
    await expect.poll(state, { timeout: 5_000 }).toBe('delivered');
    const announced = slack
      .channel(APPROVALS)
      .messages.filter(
        (message) =>
          (message.metadata as { event_type?: string } | undefined)?.event_type ===
          ANNOUNCEMENT_EVENT,
      );
    expect(announced).toHaveLength(1);
    expect(slack.callsTo('conversations.history').length).toBeGreaterThanOrEqual(1);
  });
});
