import { Client } from 'undici';
import type { Arrivals } from './arrivals.ts';
import {
  type LatencySummary,
  type LoadResult,
  type LoadShape,
  type LoadWorker,
  sendSigned,
  summarize,
} from './load.ts';
import type { ChildApp } from './processes.ts';
import { answerIds, type BuiltRequest, type Card, type SlackRequests } from './slack-requests.ts';

/** The measurements of issue 5, each against apps already running. */

export interface Plan {
  rates: number[];
  connections: number[];
  rateRunMs: number;
  saturateRunMs: number;
  /**
   * Each fixed-rate ack cell is this many runs of `rateRunMs` per app, payops and bare taking
   * turns; a cell's figures are over all their samples pooled. Short runs in many turns expose
   * both apps to the same moments of the machine: a slow second lands on both, not on one.
   */
  rateSlices: number;
  /** The same for a saturation (`max`) cell, of `saturateRunMs` each. */
  saturateSlices: number;
  /**
   * Requests built ahead for one saturation run of `saturateRunMs`: an ack run ends when they
   * run out. A full-cycle run gets as many per `saturateRunMs` of its length (the same rate
   * covered), and builds more as it goes should its users get through them.
   */
  saturateCap: number;
  fullCycleConnections: number[];
  /**
   * Each full-cycle cell is this many runs of `fullCycleRunMs`, taking turns with the bare app's
   * ack-only runs at saturation, so both rates come from the same minutes of the machine.
   */
  fullCycleSlices: number;
  fullCycleRunMs: number;
  /** Approved one at a time, for click → provider latency. */
  sequentialApprovals: number;
  /** Approved all at once, for approvals per second. */
  bulkApprovals: number;
  /** Connections sending the bulk approvals' clicks. */
  bulkConnections: number;
}

export interface BenchContext {
  requests: SlackRequests;
  load: LoadWorker;
  arrivals: Arrivals;
  plan: Plan;
}

export type AckRequest = 'balance' | 'click';

export interface AckLoad {
  shape: LoadShape;
  connections: number;
  durationMs: number;
}

export interface AckStats extends LatencySummary {
  /** Answers per second achieved. */
  perSec: number;
  failed: number;
  /** Commands payops answered "overloaded" in the ack (its backlog full): nothing was done. */
  shed: number;
}

const BALANCE_COMMAND = 'balance wal_acme_eth_ops';
/**
 * The sandbox's wal_acme_sol_treasury holds 98,000 USDC: 0.01 at a time never runs out. Each
 * payout names its own beneficiary: payops holds a request for a write identical to one being
 * sent, so identical payouts would be approved one at a time.
 */
let payoutsAsked = 0;
function payoutCommand(): string {
  payoutsAsked++;
  return `payout wallet_id=wal_acme_sol_treasury amount=0.01 currency=USDC beneficiary_name="Jane Roe ${payoutsAsked}" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`;
}
const REQUESTER = 'U0ALICE';
const APPROVER = 'U0BOB';
/** An approver too, so a click of hers on a decided request is refused only after reading it. */
const LATE_APPROVER = 'U0CAROL';
/** Longer than any wait payops should ever cause at 0 ms provider latency. */
const ANSWER_TIMEOUT_MS = 30_000;
/**
 * The bulk approvals' last call and last thread reply: on PGlite, 1,000 approvals at once take
 * tens of seconds (one connection runs every statement in turn), and a slow store is a figure
 * to report, not a reason to abandon the run.
 */
const BULK_TIMEOUT_MS = 120_000;
/** Requesters typing at once while requests are created. */
const CREATORS = 16;

/**
 * One ack-latency run of one app. `/pay balance` as alice; a click is carol's Approve on a
 * request already decided: payops refuses it after reading the request.
 * With `settle`, waits until payops has answered every request sent, so no backlog of one run
 * spills into the next.
 */
export async function ackRun(
  ctx: BenchContext,
  app: ChildApp,
  request: AckRequest,
  load: AckLoad,
  options: { decided: Card; settle: boolean },
): Promise<LoadResult> {
  const count =
    load.shape.kind === 'rate'
      ? Math.round((load.shape.perSecond * load.durationMs) / 1000)
      : ctx.plan.saturateCap;
  const build =
    request === 'balance'
      ? () => ctx.requests.command(BALANCE_COMMAND, REQUESTER)
      : () => ctx.requests.approve(options.decided, LATE_APPROVER);
  const built = await ctx.requests.many(count, build);
  const result = await ctx.load.run({
    url: app.eventsUrl,
    connections: load.connections,
    shape: load.shape,
    durationMs: load.durationMs,
    requests: built.map((entry) => entry.request),
  });
  const inAck = new Set(result.answeredInAck);
  ctx.requests.forget(
    app.answersOnResponseUrl
      ? built.filter((_, index) => index >= result.sent || inAck.has(index))
      : built,
  );
  if (options.settle) {
    const awaited = built.slice(0, result.sent).filter((_, index) => !inAck.has(index));
    await ctx.arrivals.allAnswered(answerIds(awaited), ANSWER_TIMEOUT_MS).catch((error) => {
      // What the run itself saw tells a payops that lost work from one that never acked it.
      const shape = load.shape.kind === 'rate' ? `${load.shape.perSecond}/s` : 'max';
      throw new Error(
        `${app.name}, ${request} at ${shape} over ${load.connections} connections: ${result.sent} sent, ${result.failed} not acknowledged with 200, ${inAck.size} answered in the ack; ${(error as Error).message}`,
      );
    });
  }
  return result;
}

/** One app's runs of a cell, pooled: percentiles over every sample, rate over their time. */
export function ackStats(runs: readonly LoadResult[]): AckStats {
  const latencies = runs.flatMap((run) => Array.from(run.latenciesMs));
  const elapsedMs = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  return {
    ...summarize(latencies),
    perSec: latencies.length / (elapsedMs / 1000),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
    shed: runs.reduce((sum, run) => sum + run.answeredInAck.length, 0),
  };
}

export interface FullCycle {
  connections: number;
  /** Commands answered on their response_url per second, over the runs pooled. */
  perSec: number;
  /** Each run's own rate: how far apart runs of the same load land on this machine. */
  runsPerSec: number[];
  completed: number;
  /** Command sent → answer posted (seen by 1 ms polling). */
  latency: LatencySummary;
  /** The bare app's acks per second at saturation, in runs taking turns with these. */
  bareAckPerSec: number;
}

/** One full-cycle run's answered commands and its length. */
export interface FullCycleRun {
  answered: AnsweredRequest[];
  elapsedMs: number;
}

/**
 * One full-cycle run at saturation: `connections` users each type `/pay balance` and wait for
 * the answer to reach their response_url (signed command → ack → provider read → answer)
 * before typing again. The commands are built and signed before the run, as for every other
 * run; should the users get through all of them, more are built as they go.
 */
export async function fullCycleRun(
  ctx: BenchContext,
  payops: ChildApp,
  connections: number,
): Promise<FullCycleRun> {
  const build = () => ctx.requests.command(BALANCE_COMMAND, REQUESTER);
  // Signing on the fly would take the bench's CPU from payops mid-run: 6,000 covered only
  // 4,000/s over 1.5 s, and payops reached 4,900/s on session 10's VM.
  const { saturateCap, saturateRunMs, fullCycleRunMs } = ctx.plan;
  const ready = await ctx.requests.many(
    Math.ceil((saturateCap * fullCycleRunMs) / saturateRunMs),
    build,
  );
  let taken = 0;
  const until = performance.now() + fullCycleRunMs;
  const answered = await answeredLoop(ctx, payops, connections, until, () => {
    const next = ready[taken++];
    return next ? Promise.resolve(next) : build();
  });
  ctx.requests.forget(ready.slice(taken));
  return {
    answered: answered.filter((entry) => entry.answeredAt <= until),
    elapsedMs: fullCycleRunMs,
  };
}

/**
 * A full-cycle cell's runs pooled, next to the bare app's saturation runs taken in turns with
 * them (one list per connection count; its best pooled rate is the one compared).
 */
export function fullCycleStats(
  connections: number,
  runs: readonly FullCycleRun[],
  bareRuns: ReadonlyArray<readonly LoadResult[]>,
): FullCycle {
  const answered = runs.flatMap((run) => run.answered);
  const elapsedMs = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  return {
    connections,
    perSec: answered.length / (elapsedMs / 1000),
    runsPerSec: runs.map((run) => run.answered.length / (run.elapsedMs / 1000)),
    completed: answered.length,
    latency: summarize(answered.map((entry) => entry.answeredAt - entry.sentAt)),
    bareAckPerSec: Math.max(...bareRuns.map((group) => ackStats(group).perSec)),
  };
}

export interface Created {
  cards: Card[];
  perSec: number;
}

/** `count` payout requests by alice, `CREATORS` at a time, each done once she is told it exists. */
export async function createRequests(
  ctx: BenchContext,
  payops: ChildApp,
  count: number,
): Promise<Created> {
  const cardsBefore = ctx.arrivals.cards.length;
  const started = performance.now();
  let remaining = count;
  await answeredLoop(ctx, payops, CREATORS, started + ANSWER_TIMEOUT_MS * 4, () => {
    if (remaining === 0) return undefined;
    remaining--;
    return ctx.requests.command(payoutCommand(), REQUESTER);
  });
  const perSec = count / ((performance.now() - started) / 1000);
  await ctx.arrivals.until(
    () => ctx.arrivals.cards.length >= cardsBefore + count,
    ANSWER_TIMEOUT_MS,
    `${count} approval messages`,
  );
  return { cards: ctx.arrivals.cards.slice(cardsBefore, cardsBefore + count), perSec };
}

/**
 * Bob approves each card in turn, the next once the previous one's createPayout has reached
 * the sandbox; each measured from sending the click to the sandbox receiving the call.
 */
export async function approveOneByOne(
  ctx: BenchContext,
  payops: ChildApp,
  cards: Card[],
): Promise<LatencySummary> {
  const { origin, pathname } = new URL(payops.eventsUrl);
  const client = new Client(origin);
  const latencies: number[] = [];
  try {
    for (const card of cards) {
      const click = await ctx.requests.approve(card, APPROVER);
      const index = ctx.arrivals.payoutCount();
      const sentAt = performance.now();
      const ack = await sendSigned(client, pathname, click.request);
      if (ack.status !== 200) throw new Error(`Approve of #${card.id} got HTTP ${ack.status}`);
      const payout = await ctx.arrivals.payout(index, ANSWER_TIMEOUT_MS);
      latencies.push(payout.hrAt - sentAt);
    }
  } finally {
    await client.close();
  }
  return summarize(latencies);
}

export interface BulkApprovals {
  approvals: number;
  /** createPayout calls received per second, from the first click sent to the last call. */
  perSec: number;
  /** createPayout calls received in all: exactly `approvals`, or something ran twice. */
  payouts: number;
}

/**
 * Bob approves every card as fast as payops acknowledges; the sandbox counts the payouts, and
 * the run ends once every requester has been told the outcome in the card's thread.
 */
export async function approveInBulk(
  ctx: BenchContext,
  payops: ChildApp,
  cards: Card[],
): Promise<BulkApprovals> {
  const clicks = await ctx.requests.many(cards.length, (index) =>
    ctx.requests.approve(cards[index] as Card, APPROVER),
  );
  const before = ctx.arrivals.payoutCount();
  const result = await ctx.load.run({
    url: payops.eventsUrl,
    connections: ctx.plan.bulkConnections,
    shape: { kind: 'saturate' },
    durationMs: ANSWER_TIMEOUT_MS,
    requests: clicks.map((click) => click.request),
  });
  // Done when payops is — every requester told the outcome, whatever it was — so no tail
  // spills into the next run, and a second call for one request would have shown by then. A
  // payout that never arrived (its outcome unknown, say) is then a count short, not a hang.
  await ctx.arrivals.allToldInThread(cards, BULK_TIMEOUT_MS);
  const payouts = ctx.arrivals.payouts.slice(before);
  const last = payouts.at(-1);
  const firstClickAt = result.startedAtEpochMs - performance.timeOrigin;
  return {
    approvals: cards.length,
    perSec: last ? payouts.length / ((last.hrAt - firstClickAt) / 1000) : 0,
    payouts: payouts.length,
  };
}

export interface AnsweredRequest {
  sentAt: number;
  answeredAt: number;
}

/**
 * `connections` loops, each sending the next request and waiting for payops's answer on its
 * response_url before sending another, until `next` has none left or `until` has passed.
 */
async function answeredLoop(
  ctx: BenchContext,
  payops: ChildApp,
  connections: number,
  until: number,
  next: () => Promise<BuiltRequest> | undefined,
): Promise<AnsweredRequest[]> {
  const { origin, pathname } = new URL(payops.eventsUrl);
  const answered: AnsweredRequest[] = [];
  const loop = async () => {
    const client = new Client(origin);
    try {
      while (performance.now() < until) {
        const building = next();
        if (building === undefined) return;
        const built = await building;
        const sentAt = performance.now();
        const ack = await sendSigned(client, pathname, built.request);
        if (ack.status !== 200) throw new Error(`payops answered HTTP ${ack.status}`);
        await ctx.arrivals.allAnswered(answerIds([built]), ANSWER_TIMEOUT_MS);
        answered.push({ sentAt, answeredAt: performance.now() });
      }
    } finally {
      await client.close();
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return answered;
}
