import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import { rehearsalEnv } from '../src/rehearsal/rehearsal.ts';
import { startPaymentsSandbox } from '../src/rehearsal/sandbox/payments-api.ts';
import { DEFAULT_SLACK, startSlackEmulation } from '../src/rehearsal/sandbox/slack.ts';
import { type BurstPlan, type BurstResult, runBurst } from './burst.ts';
import { type LatencySummary, LoadWorker, sleep, summarize } from './load.ts';
import { type OutagePlan, type OutageResult, runOutage } from './outage.ts';
import { ChildApp, npmStartCommand, PeakRss } from './processes.ts';
import { SlackRequests } from './slack-requests.ts';
import { type BenchStore, embeddedStore, postgresStore } from './stores.ts';

/**
 * `npm run bench` (about ten minutes) and `npm run bench:quick` (two or three). payops runs as
 * production runs it (`npm start`'s command, compiled), beside a bare Bolt app that only acks,
 * on embedded PGlite and, when DATABASE_URL or TEST_DATABASE_URL names a server, on a fresh
 * PostgreSQL database. Per store:
 * - guards: `/pay balance` at 100 commands a second with the provider answering at once and
 *   after 2 s: ack p99 under 50 ms, no failed ack, and RSS idle and at peak beside the bare app;
 * - the burst (bench/burst.ts), with Slack's limits enforced: on PostgreSQL also with two replicas;
 * - Slack failing for a while, then recovering (bench/outage.ts).
 * Exits 1 if a target is missed.
 */

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const PAYOPS_START = npmStartCommand();
const BARE_SCRIPT = 'bench/results/build/bench/bare-bolt.js';
const GUARD_RATE = 100;
const GUARD_ACK_P99_MS = 50;
const PROVIDER_LATENCIES_MS = [0, 2_000];
/** Past the Payments client's own timeouts: a command still unanswered by then never will be. */
const ANSWER_WITHIN_MS = 60_000;
const BURST_COMPLETION_RATIO = 1.25;
/**
 * The quick burst's completion target, in seconds after its floor: its tail (the last approvals,
 * the redraw that joins the outcome) takes about 2.5 s at any size, which a ratio sized for the
 * full run's 27 s floor cannot absorb on the quick run's 9 s. This is about twice that tail.
 */
const QUICK_BURST_TAIL_SEC = 5;
const BURST_RATE_LIMITED_SHARE = 0.02;
/** After Slack recovers from an outage, everything waiting is delivered within this. */
const OUTAGE_RECOVERY_SEC = 120;

/** When the burst's last outcome must be shown: within a ratio of its floor, or seconds after it. */
type BurstTarget = { ratio: number } | { tailSec: number };

interface Plan {
  guardRunMs: number;
  burst: BurstPlan;
  burstTarget: BurstTarget;
  outage: OutagePlan;
}

const PLANS: Record<'full' | 'quick', Plan> = {
  full: {
    guardRunMs: 10_000,
    burst: { requests: 300, arrivalMs: 1_000, scale: 20, connections: 50 },
    burstTarget: { ratio: BURST_COMPLETION_RATIO },
    outage: { outageMs: 120_000, requests: 10 },
  },
  quick: {
    guardRunMs: 2_000,
    burst: { requests: 120, arrivalMs: 400, scale: 20, connections: 20 },
    burstTarget: { tailSec: QUICK_BURST_TAIL_SEC },
    outage: { outageMs: 10_000, requests: 3 },
  },
};

interface GuardRow {
  providerMs: number;
  payops: LatencySummary & { failed: number; unanswered: number };
  bare: LatencySummary & { failed: number };
}

interface StoreResults {
  store: string;
  guards: GuardRow[];
  rssMb: { payopsIdle: number; payopsPeak: number; bareIdle: number; barePeak: number };
  bursts: BurstResult[];
  outage: OutageResult;
}

async function main(): Promise<void> {
  const mode = process.argv.includes('--quick') ? 'quick' : 'full';
  const plan = PLANS[mode];
  mkdirSync(RESULTS_DIR, { recursive: true });
  progress('building payops and the bare app (both run compiled, as in production)');
  buildApps();
  const load = new LoadWorker();
  const results: StoreResults[] = [];
  try {
    for (const open of storesToRun()) {
      const store = await open();
      try {
        results.push(await benchStore(plan, load, store));
      } finally {
        await store.dispose();
      }
    }
  } finally {
    await load.close();
  }
  const misses = report(results, mode, plan.burstTarget);
  writeFileSync(
    `${RESULTS_DIR}latest.json`,
    `${JSON.stringify({ mode, machine: machine(), at: new Date().toISOString(), results }, null, 2)}\n`,
  );
  if (misses.length > 0) {
    console.log(`\nMISSED: ${misses.join('; ')}`);
    process.exitCode = 1;
  }
}

async function benchStore(plan: Plan, load: LoadWorker, store: BenchStore): Promise<StoreResults> {
  progress(`${store.engine}: guards`);
  const { guards, rssMb } = await runGuards(plan, load, store);
  const bursts: BurstResult[] = [];
  const replicaCounts = store.engine === 'postgres' ? [1, 2] : [1];
  for (const replicas of replicaCounts) {
    progress(`${store.engine}: burst of ${plan.burst.requests}, ${replicas} replica(s)`);
    // Each burst on an empty store of its own: its request numbers start at 1.
    const fresh = await freshLike(store);
    try {
      bursts.push(await runBurst(plan.burst, load, fresh, replicas, startPayops));
    } finally {
      await fresh.dispose();
    }
  }
  progress(`${store.engine}: Slack failing for ${plan.outage.outageMs / 1000} s`);
  const fresh = await freshLike(store);
  let outage: OutageResult;
  try {
    outage = await runOutage(plan.outage, fresh, startPayops);
  } finally {
    await fresh.dispose();
  }
  return { store: store.engine, guards, rssMb, bursts, outage };
}

/** The ack guards at each provider latency, payops and the bare app in turns. */
async function runGuards(
  plan: Plan,
  load: LoadWorker,
  store: BenchStore,
): Promise<Pick<StoreResults, 'guards' | 'rssMb'>> {
  const sandbox = await startPaymentsSandbox();
  const slack = await startSlackEmulation();
  const env = { ...rehearsalEnv(sandbox, slack), LOG_LEVEL: 'warn', ...store.env };
  const payops = await startPayops(`payops-${store.engine}-guards`, env);
  const bare = await startBare();
  try {
    await sleep(1_000);
    const idle = { payops: payops.rssMb(), bare: bare.rssMb() };
    const peaks = new PeakRss([payops, bare]);
    const builder = new SlackRequests(slack);
    const count = Math.round((GUARD_RATE * plan.guardRunMs) / 1000);
    const guards: GuardRow[] = [];
    for (const providerMs of PROVIDER_LATENCIES_MS) {
      sandbox.setLatency(providerMs);
      const measure = async (app: ChildApp) => {
        const built = await builder.many(count, () =>
          builder.command('balance wal_acme_eth_ops', 'U0DAVE'),
        );
        const result = await load.run({
          url: app.eventsUrl,
          connections: 10,
          shape: { kind: 'rate', perSecond: GUARD_RATE },
          durationMs: plan.guardRunMs,
          requests: built.map((entry) => entry.request),
        });
        return { result, built };
      };
      const ofPayops = await measure(payops);
      // Every command is answered on its response_url: the provider's answer, or its timeout.
      const unansweredNow = () =>
        ofPayops.built.filter(
          (entry) => entry.responseUrlId && slack.responsesTo(entry.responseUrlId).length === 0,
        ).length;
      await slack
        .waitFor(() => unansweredNow() === 0, { timeoutMs: ANSWER_WITHIN_MS })
        .catch(() => undefined);
      const unanswered = unansweredNow();
      const ofBare = await measure(bare);
      builder.forget(ofBare.built);
      guards.push({
        providerMs,
        payops: {
          ...summarize(ofPayops.result.latenciesMs),
          failed: ofPayops.result.failed,
          unanswered,
        },
        bare: { ...summarize(ofBare.result.latenciesMs), failed: ofBare.result.failed },
      });
    }
    peaks.stop();
    return {
      guards,
      rssMb: {
        payopsIdle: idle.payops,
        payopsPeak: peaks.peakMb(payops),
        bareIdle: idle.bare,
        barePeak: peaks.peakMb(bare),
      },
    };
  } finally {
    await Promise.all([payops.stop(), bare.stop()]);
    await Promise.all([sandbox.close(), slack.close()]);
  }
}

/** Prints the tables; returns the targets missed. */
function report(results: StoreResults[], mode: string, burstTarget: BurstTarget): string[] {
  const misses: string[] = [];
  const ms = (value: number) => value.toFixed(2);
  console.log(`\npayops bench (${mode}) on ${machine().cpuModel}, ${machine().cpus} CPUs\n`);
  console.log('Guards: /pay balance at 100/s over 10 connections');
  console.log(
    '| store | provider | payops ack p50 / p99 / max (ms) | bare p99 | failed | unanswered |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const { store, guards } of results) {
    for (const row of guards) {
      const { payops, bare } = row;
      console.log(
        `| ${store} | ${row.providerMs} ms | ${ms(payops.p50)} / ${ms(payops.p99)} / ${ms(payops.max)} | ${ms(bare.p99)} | ${payops.failed} | ${payops.unanswered} |`,
      );
      if (!(payops.p99 < GUARD_ACK_P99_MS)) {
        misses.push(`${store}, provider ${row.providerMs} ms: ack p99 ${ms(payops.p99)} ms`);
      }
      if (payops.failed > 0 || payops.unanswered > 0) {
        misses.push(
          `${store}, provider ${row.providerMs} ms: ${payops.failed} failed acks, ${payops.unanswered} unanswered`,
        );
      }
    }
  }
  console.log('\n| store | payops RSS idle / peak (MB) | bare idle / peak |');
  console.log('|---|---|---|');
  for (const { store, rssMb } of results) {
    console.log(
      `| ${store} | ${rssMb.payopsIdle.toFixed(0)} / ${rssMb.payopsPeak.toFixed(0)} | ${rssMb.bareIdle.toFixed(0)} / ${rssMb.barePeak.toFixed(0)} |`,
    );
  }
  console.log(
    '\nBurst: every payout requested at once, each approved as its card appears; Slack limits ×scale',
  );
  console.log(
    '| store | replicas | requests | scale | last card (s) | last outcome (s) | floor (s) | ratio | Slack calls/request | 429s | cards lost/dup | outcomes lost/dup | payouts | ack p99 commands / clicks (ms) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { bursts } of results) {
    for (const b of bursts) {
      const ratio = b.floorSec > 0 ? b.lastOutcomeSec / b.floorSec : Number.NaN;
      console.log(
        `| ${b.store} | ${b.replicas} | ${b.requests} | ${b.scale} | ${b.lastCardSec.toFixed(1)} | ${b.lastOutcomeSec.toFixed(1)} | ${b.floorSec.toFixed(1)} | ${ratio.toFixed(2)} | ${(b.slackCalls / b.requests).toFixed(2)} | ${b.rateLimited} (${((b.rateLimited / Math.max(1, b.slackCalls)) * 100).toFixed(1)} %) | ${b.cards.lost}/${b.cards.duplicated} | ${b.outcomes.lost}/${b.outcomes.duplicated} | ${b.providerPayouts} | ${ms(b.commandAcks.p99)} / ${ms(b.clickAcks.p99)} |`,
      );
      const where = `${b.store} burst, ${b.replicas} replica(s)`;
      if (b.cards.lost + b.cards.duplicated + b.outcomes.lost + b.outcomes.duplicated > 0) {
        misses.push(`${where}: cards or outcomes lost or duplicated`);
      }
      if (b.providerPayouts !== b.requests || b.failedCommands > 0) {
        misses.push(
          `${where}: ${b.providerPayouts} payouts for ${b.requests} requests, ${b.failedCommands} failed commands`,
        );
      }
      const tailSec = b.lastOutcomeSec - b.floorSec;
      if ('ratio' in burstTarget && !(ratio <= burstTarget.ratio)) {
        misses.push(`${where}: ${ratio.toFixed(2)}× the floor`);
      }
      if ('tailSec' in burstTarget && !(tailSec <= burstTarget.tailSec)) {
        misses.push(`${where}: last outcome ${tailSec.toFixed(1)} s after the floor`);
      }
      if (b.rateLimited / Math.max(1, b.slackCalls) >= BURST_RATE_LIMITED_SHARE) {
        misses.push(`${where}: ${b.rateLimited} 429s`);
      }
      if (!(Math.max(b.commandAcks.p99, b.clickAcks.p99) < GUARD_ACK_P99_MS)) {
        misses.push(`${where}: ack p99 ${ms(b.commandAcks.p99)} / ${ms(b.clickAcks.p99)} ms`);
      }
    }
  }
  console.log(
    '\nFollowing each burst payout to its final status (PAYOPS_FOLLOW_INTERVAL_MS default, 60 s; the sandbox completes a payout in 10 s)',
  );
  console.log(
    '| store | replicas | last final told (s) | payouts list reads | reads / minute | follow Slack calls / followed payout | Slack calls / request in all | finals lost | changes duplicated |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { bursts } of results) {
    for (const b of bursts) {
      const f = b.follow;
      console.log(
        `| ${b.store} | ${b.replicas} | ${f.lastFinalSec.toFixed(1)} | ${f.listReads} | ${f.readsPerMinute.toFixed(2)} | ${(f.slackCalls / f.followed).toFixed(2)} | ${(b.slackCalls / b.requests + f.slackCalls / f.followed).toFixed(2)} | ${f.finalLost} | ${f.changesDuplicated} |`,
      );
      if (f.finalLost + f.changesDuplicated > 0) {
        misses.push(
          `${b.store} burst, ${b.replicas} replica(s): ${f.finalLost} final statuses never told, ${f.changesDuplicated} told twice`,
        );
      }
    }
  }
  console.log('\nSlack answering every chat.* call with 500, then recovering (Slack limits ×1)');
  console.log(
    '| store | outage (s) | requests | failed calls | last card after (s) | last outcome after (s) | cards lost/dup | outcomes lost/dup | payouts |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { outage: o } of results) {
    console.log(
      `| ${o.store} | ${o.outageSec} | ${o.requests} | ${o.failedCalls} | ${o.lastCardAfterSec.toFixed(1)} | ${o.lastOutcomeAfterSec.toFixed(1)} | ${o.cards.lost}/${o.cards.duplicated} | ${o.outcomes.lost}/${o.outcomes.duplicated} | ${o.providerPayouts} |`,
    );
    if (o.cards.lost + o.cards.duplicated + o.outcomes.lost + o.outcomes.duplicated > 0) {
      misses.push(`${o.store} outage: cards or outcomes lost or duplicated`);
    }
    if (Math.max(o.lastCardAfterSec, o.lastOutcomeAfterSec) > OUTAGE_RECOVERY_SEC) {
      misses.push(
        `${o.store} outage: delivered ${Math.max(o.lastCardAfterSec, o.lastOutcomeAfterSec).toFixed(0)} s after Slack recovered`,
      );
    }
  }
  for (const { bursts } of results) {
    for (const b of bursts) {
      const methods = Object.entries(b.callsByMethod)
        .map(([method, count]) => `${method} ${(count / b.requests).toFixed(2)}`)
        .join(', ');
      console.log(
        `${b.store} ×${b.replicas}: Slack calls per request: ${methods}; the floor is set by ${b.floorBucket}`,
      );
    }
  }
  return misses;
}

function startPayops(name: string, env: Record<string, string>): Promise<ChildApp> {
  return ChildApp.start({
    name,
    script: PAYOPS_START.script,
    env,
    logFile: `${RESULTS_DIR}${name}.log`,
    nodeOptions: PAYOPS_START.nodeOptions,
  });
}

/** The floor of the guards: Bolt's own HTTP receiver and handlers that only ack. */
function startBare(): Promise<ChildApp> {
  return ChildApp.start({
    name: 'bare',
    script: BARE_SCRIPT,
    env: {
      SLACK_BOT_TOKEN: DEFAULT_SLACK.botToken,
      SLACK_SIGNING_SECRET: DEFAULT_SLACK.signingSecret,
      SLACK_BOT_ID: DEFAULT_SLACK.botId,
      SLACK_BOT_USER_ID: DEFAULT_SLACK.botUserId,
    },
    logFile: `${RESULTS_DIR}bare.log`,
    answersOnResponseUrl: false,
  });
}

function storesToRun(): Array<() => Promise<BenchStore>> {
  const serverUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    console.error('bench: no DATABASE_URL or TEST_DATABASE_URL, so PGlite only');
    return [embeddedStore];
  }
  return [embeddedStore, () => postgresStore(serverUrl)];
}

/** Another empty store of the same engine. */
function freshLike(store: BenchStore): Promise<BenchStore> {
  const serverUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  return store.engine === 'postgres' && serverUrl ? postgresStore(serverUrl) : embeddedStore();
}

function buildApps(): void {
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd, stdio: 'inherit' });
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  execFileSync(process.execPath, [tsc, '-p', 'bench/tsconfig.build.json'], {
    cwd,
    stdio: 'inherit',
  });
}

function machine(): { cpus: number; cpuModel: string; node: string; kernel: string } {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    cpus: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    node: process.version,
    kernel: release(),
  };
}

const benchStarted = performance.now();

function progress(what: string): void {
  console.error(`bench [${((performance.now() - benchStarted) / 1000).toFixed(0)} s] ${what}`);
}

await main();
