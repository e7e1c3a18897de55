import { rehearsalEnv } from '../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../src/rehearsal/sandbox/payments-api.ts';
import {
  type ApiCall,
  rateBuckets,
  type SlackEmulation,
  startSlackEmulation,
} from '../src/rehearsal/sandbox/slack.ts';
import { CARD_EVENT, FOLLOW_NOTICE_EVENT, NOTICE_EVENT } from '../src/slack/outbox.ts';
import { type LatencySummary, type LoadWorker, sleep, summarize } from './load.ts';
import type { ChildApp } from './processes.ts';
import { APPROVALS_CHANNEL, type BuiltRequest, SlackRequests } from './slack-requests.ts';

/**
 * The burst: `requests` payouts requested at once, each approved as soon as its card appears,
 * against a Slack emulation that enforces Slack's published limits (scaled by `scale`, payops
 * pacing itself alike). Measured: the time to the last card and the last outcome shown, beside
 * the floor the limits imply for the Slack calls payops made; calls per request; 429s; cards and
 * outcomes lost or duplicated; the acks meanwhile.
 */

export interface BurstPlan {
  requests: number;
  /** The requests all arrive within this long (people typing at once, not a script). */
  arrivalMs: number;
  scale: number;
  /** Commands are sent over this many connections, all within about 100 ms. */
  connections: number;
}

export interface BurstResult {
  store: string;
  replicas: number;
  requests: number;
  scale: number;
  lastCardSec: number;
  lastOutcomeSec: number;
  /** The least time Slack's (scaled) limits allow for the successful calls payops made. */
  floorSec: number;
  /** Which limit sets the floor. */
  floorBucket: string;
  slackCalls: number;
  callsByMethod: Record<string, number>;
  rateLimited: number;
  cards: { lost: number; duplicated: number };
  outcomes: { lost: number; duplicated: number };
  providerPayouts: number;
  commandAcks: LatencySummary;
  clickAcks: LatencySummary;
  /** Commands whose ack was not 200 (shed, refused, timed out). */
  failedCommands: number;
  follow: FollowResult;
}

/**
 * Following on, as deployed (PAYOPS_FOLLOW_INTERVAL_MS's default): from the burst's start until
 * every payout's final status at the provider is told in its thread.
 */
export interface FollowResult {
  /** From the burst's start to the last final status told. */
  lastFinalSec: number;
  /** Reads of the payouts list (all of them: payops reads nothing else to follow). */
  listReads: number;
  readsPerMinute: number;
  /** Payouts followed: the burst's and the warm-up's. */
  followed: number;
  /** Slack calls after the burst's outcomes: the follow-up's notices and card redraws. */
  slackCalls: number;
  /** Requests whose final status was never told; changes told more than once. */
  finalLost: number;
  changesDuplicated: number;
}

/** Requests made and approved on each replica before the burst. */
const WARM_UP_PER_REPLICA = 5;

/** Far more than approvers click in real life: the guards' command rate. */
const CLICKS_PER_SECOND = 100;

/** Long enough for the per-channel bucket the warm-up drew on to be full again. */
const REFILL_MS = 3_000;

/** A card's fallback text once its request is executed, whatever the provider said. */
const FINAL = /submitted to the provider|refused by the provider|outcome unknown/;

/** A bound on the wait for the last outcome, well past any floor a plan here implies. */
const GIVE_UP_AFTER_MS = 5 * 60_000;

/** A bound on the wait for every final status: past a few follow intervals (a minute each). */
const FOLLOW_GIVE_UP_AFTER_MS = 4 * 60_000;

/**
 * `startPayops` starts one payops child against this sandbox and emulation (its environment
 * given); with `replicas` > 1, all share one PostgreSQL and the commands and clicks are dealt
 * over them.
 */
export async function runBurst(
  plan: BurstPlan,
  load: LoadWorker,
  store: { engine: string; env: Record<string, string> },
  replicas: number,
  startPayops: (name: string, env: Record<string, string>) => Promise<ChildApp>,
): Promise<BurstResult> {
  const sandbox = await startPaymentsSandbox();
  const slack = await startSlackEmulation({ rateLimits: { scale: plan.scale } });
  const apps: ChildApp[] = [];
  try {
    const env = { ...rehearsalEnv(sandbox, slack), LOG_LEVEL: 'warn', ...store.env };
    for (let replica = 0; replica < replicas; replica++) {
      apps.push(await startPayops(`payops-${store.engine}-burst-${replica}`, env));
    }
    const builder = new SlackRequests(slack);
    // A few requests through the whole flow first, on each replica: production runs warm.
    const warmUp = WARM_UP_PER_REPLICA * apps.length;
    await sendAtOnce(
      load,
      apps,
      await builder.many(warmUp, (i) => builder.command(payoutText(i), 'U0ALICE')),
      1,
    );
    await approveAsCardsAppear(slack, load, builder, apps, ids(1, warmUp), performance.now(), []);
    // Slack's buckets (and payops's) full again: the floor below assumes the burst starts so.
    await sleep(REFILL_MS);
    const measured = ids(warmUp + 1, warmUp + plan.requests);
    const commands = await builder.many(plan.requests, (index) =>
      builder.command(payoutText(warmUp + index), 'U0ALICE'),
    );
    const callsBefore = slack.calls.length;
    const started = performance.now();
    const sent = await sendAtOnce(load, apps, commands, plan.connections, plan.arrivalMs);
    const clickAcks: number[] = [];
    const progress = await approveAsCardsAppear(
      slack,
      load,
      builder,
      apps,
      measured,
      started,
      clickAcks,
    );
    const calls = slack.calls.slice(callsBefore);
    const follow = await followToFinal(
      slack,
      sandbox,
      measured,
      started,
      callsBefore + calls.length,
      plan.requests + warmUp,
    );
    const { floorSec, floorBucket } = floorOf(calls, plan.scale);
    const callsByMethod: Record<string, number> = {};
    for (const call of calls) callsByMethod[call.method] = (callsByMethod[call.method] ?? 0) + 1;
    return {
      store: store.engine,
      replicas,
      requests: plan.requests,
      scale: plan.scale,
      lastCardSec: progress.lastCardMs / 1000,
      lastOutcomeSec: progress.lastOutcomeMs / 1000,
      floorSec,
      floorBucket,
      slackCalls: calls.length,
      callsByMethod,
      rateLimited: calls.filter((call) => call.status === 429).length,
      cards: tally(slack, CARD_EVENT, measured),
      outcomes: tally(slack, NOTICE_EVENT, measured),
      providerPayouts:
        sandbox.requests.filter((request) => request.operationId === 'createPayout').length -
        warmUp,
      commandAcks: summarize(sent.latencies),
      clickAcks: summarize(clickAcks),
      failedCommands: sent.failed,
      follow,
    };
  } finally {
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all([sandbox.close(), slack.close()]);
  }
}

/** A payout of its own amount each (below the two-approver threshold). */
export function payoutText(index: number): string {
  const amount = (1 + index / 100).toFixed(2);
  return `payout wallet_id=wal_acme_sol_treasury amount=${amount} currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`;
}

/** Request numbers `from` to `to`, as Slack metadata carries them. */
function ids(from: number, to: number): Set<string> {
  return new Set(Array.from({ length: to - from + 1 }, (_, i) => String(from + i)));
}

/** The requests dealt over the replicas, all sent within `withinMs`; their acks timed. */
async function sendAtOnce(
  load: LoadWorker,
  apps: ChildApp[],
  built: BuiltRequest[],
  connections: number,
  withinMs = 100,
): Promise<{ latencies: number[]; failed: number }> {
  const runs = await Promise.all(
    apps.map((app, replica) => {
      const mine = built.filter((_, index) => index % apps.length === replica);
      return load.run({
        url: app.eventsUrl,
        connections: Math.max(1, Math.round(connections / apps.length)),
        shape: { kind: 'rate', perSecond: Math.max(1, (mine.length * 1000) / withinMs) },
        durationMs: withinMs,
        requests: mine.map((entry) => entry.request),
      });
    }),
  );
  return {
    latencies: runs.flatMap((run) => Array.from(run.latenciesMs)),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
  };
}

/**
 * bob approves each card of `expected` once it is posted (clicks sent and timed by the load
 * generator's thread); resolves when every one shows a final state and its outcome is told in
 * its thread (or at GIVE_UP_AFTER_MS), with when the last card and the last outcome came.
 */
async function approveAsCardsAppear(
  slack: SlackEmulation,
  load: LoadWorker,
  builder: SlackRequests,
  apps: ChildApp[],
  expected: ReadonlySet<string>,
  started: number,
  clickAcks: number[],
): Promise<{ lastCardMs: number; lastOutcomeMs: number }> {
  const clicked = new Set<string>();
  const outcomeShown = new Set<string>();
  let lastCardMs = 0;
  let lastOutcomeMs = 0;
  const deadline = performance.now() + GIVE_UP_AFTER_MS;
  while (outcomeShown.size < expected.size && performance.now() < deadline) {
    const messages = slack.channel(APPROVALS_CHANNEL).messages;
    const told = new Set(messages.flatMap((message) => markOf(message, NOTICE_EVENT) ?? []));
    const clicks: BuiltRequest[] = [];
    for (const message of messages) {
      const id = markOf(message, CARD_EVENT);
      if (id === undefined || !expected.has(id)) continue;
      if (!clicked.has(id)) {
        clicked.add(id);
        lastCardMs = performance.now() - started;
        clicks.push(await builder.approve({ id: Number(id), ts: message.ts }, 'U0BOB'));
      }
      if (!outcomeShown.has(id) && told.has(id) && FINAL.test(message.text ?? '')) {
        outcomeShown.add(id);
        lastOutcomeMs = performance.now() - started;
      }
    }
    if (clicks.length > 0) {
      // Approvers are people: at most CLICKS_PER_SECOND, however many cards appeared at once.
      const withinMs = Math.max(100, (clicks.length * 1000) / CLICKS_PER_SECOND);
      const sent = await sendAtOnce(load, apps, clicks, Math.min(10, clicks.length), withinMs);
      clickAcks.push(...sent.latencies);
    } else {
      await sleep(50);
    }
  }
  return { lastCardMs, lastOutcomeMs };
}

/**
 * Waits until every request of `expected` has its final status at the provider told in its
 * thread (the sandbox completes a payout 10 s after it is made), then counts what following
 * cost; `followed` payouts in all (the warm-up's too) are followed meanwhile.
 */
async function followToFinal(
  slack: SlackEmulation,
  sandbox: PaymentsSandbox,
  expected: ReadonlySet<string>,
  started: number,
  callsBefore: number,
  followed: number,
): Promise<FollowResult> {
  const finals = new Set<string>();
  let lastFinalMs = 0;
  const deadline = performance.now() + FOLLOW_GIVE_UP_AFTER_MS;
  while (finals.size < expected.size && performance.now() < deadline) {
    for (const message of slack.channel(APPROVALS_CHANNEL).messages) {
      const id = markOf(message, FOLLOW_NOTICE_EVENT);
      if (id === undefined || !expected.has(id) || finals.has(id)) continue;
      // A success (still watched for a return) or a failure: the status the payout came to.
      if (!/It is (a final status|a success)/.test(message.text ?? '')) continue;
      finals.add(id);
      lastFinalMs = performance.now() - started;
    }
    await sleep(200);
  }
  const changes = new Map<string, number>();
  for (const message of slack.channel(APPROVALS_CHANNEL).messages) {
    const id = markOf(message, FOLLOW_NOTICE_EVENT);
    if (id === undefined || !expected.has(id)) continue;
    const change = `${id} ${String(eventOf(message))}`;
    changes.set(change, (changes.get(change) ?? 0) + 1);
  }
  const listReads = sandbox.requests.filter(
    (request) => request.operationId === 'listPayouts' && request.hrAt >= started,
  ).length;
  const windowMin = (performance.now() - started) / 60_000;
  return {
    lastFinalSec: lastFinalMs / 1000,
    listReads,
    readsPerMinute: listReads / windowMin,
    followed,
    slackCalls: slack.calls.length - callsBefore,
    finalLost: expected.size - finals.size,
    changesDuplicated: [...changes.values()].filter((count) => count > 1).length,
  };
}

function eventOf(message: { metadata?: unknown }): unknown {
  return (message.metadata as { event_payload?: Record<string, unknown> } | undefined)
    ?.event_payload?.event;
}

/** The request a message of payops's is about, by its metadata, if it is of this type. */
export function markOf(message: { metadata?: unknown }, eventType: string): string | undefined {
  const metadata = message.metadata as
    | { event_type?: unknown; event_payload?: Record<string, unknown> }
    | undefined;
  if (metadata?.event_type !== eventType) return undefined;
  const value = metadata.event_payload?.request_id;
  return value === undefined ? undefined : String(value);
}

/** Per request: none (lost) or more than one (duplicated) of the messages marked so. */
export function tally(
  slack: SlackEmulation,
  eventType: string,
  requests: ReadonlySet<string>,
): { lost: number; duplicated: number } {
  const counts = new Map<string, number>();
  for (const message of slack.channel(APPROVALS_CHANNEL).messages) {
    const id = markOf(message, eventType);
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  for (const id of requests) {
    const count = counts.get(id) ?? 0;
    if (count === 0) lost++;
    if (count > 1) duplicated++;
  }
  return { lost, duplicated };
}

/**
 * For each of Slack's limits, the least time its successful calls need: (calls − burst) ÷
 * refill rate. The floor is the largest, and the bucket that sets it.
 */
function floorOf(
  calls: readonly ApiCall[],
  scale: number,
): { floorSec: number; floorBucket: string } {
  const perBucket = new Map<string, { count: number; capacity: number; perSecond: number }>();
  for (const call of calls) {
    if (call.status !== 200) continue;
    for (const bucket of rateBuckets(call.method, scale)) {
      const key =
        bucket.per === 'channel' ? `${call.method} in ${String(call.args.channel)}` : call.method;
      const entry = perBucket.get(key) ?? { count: 0, ...bucket };
      entry.count++;
      perBucket.set(key, entry);
    }
  }
  let floorSec = 0;
  let floorBucket = 'none';
  for (const [key, { count, capacity, perSecond }] of perBucket) {
    const seconds = Math.max(0, count - capacity) / perSecond;
    if (seconds > floorSec) {
      floorSec = seconds;
      floorBucket = `${key}: ${count} calls`;
    }
  }
  return { floorSec, floorBucket };
}
