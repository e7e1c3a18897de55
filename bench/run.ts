import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type PaymentsSandbox, startPaymentsSandbox } from '../src/sandbox/payments-api.ts';
import { rehearsalEnv } from '../src/sandbox/rehearsal.ts';
import { DEFAULT_SLACK, type SlackEmulation, startSlackEmulation } from '../src/sandbox/slack.ts';
import { Arrivals } from './arrivals.ts';
import { type LoadResult, LoadWorker, sleep } from './load.ts';
import {
  type AckLoad,
  type AckRequest,
  ackRun,
  ackStats,
  approveInBulk,
  approveOneByOne,
  type BenchContext,
  createRequests,
  type FullCycle,
  fullCycleRun,
  fullCycleStats,
  type Plan,
} from './measure.ts';
import { ChildApp, npmStartCommand, PeakRss } from './processes.ts';
import {
  type AckRow,
  checkTargets,
  type EngineResults,
  type Machine,
  type Memory,
  type NoiseFloorRow,
  printReport,
  type Results,
  writeResults,
} from './report.ts';
import { type Card, SlackRequests } from './slack-requests.ts';
import { type BenchStore, embeddedStore, postgresStore } from './stores.ts';

/**
 * `npm run bench` (about half an hour) and `npm run bench:quick` (under a minute): payops against
 * a bare Bolt app, both compiled and run as child processes, with the Payments sandbox, the Slack
 * emulation and the load generator (in a worker thread) in this process, all on 127.0.0.1.
 * payops runs on embedded PGlite and on PostgreSQL when DATABASE_URL or TEST_DATABASE_URL names
 * a server (a fresh database is created there for the run and dropped after it), launched
 * `BenchPlan.launches` times on each, with a fresh bare app beside each launch.
 * `--profile` starts the payops children with `--cpu-prof` (profiles land in bench/results/profiles).
 * `--launches=N` launches each app N times for the ack cells instead of the plan's count.
 */

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
/** `npm start` exactly: its Node options (heap sizes) and the script `npm run build` makes. */
const PAYOPS_START = npmStartCommand();
/** bench/bare-bolt.ts compiled by the same TypeScript with the same options. */
const BARE_SCRIPT = 'bench/results/build/bench/bare-bolt.js';
const SLOW_PROVIDER_MS = 2_000;
/**
 * The full cycle is compared with the bare app's ack-only rate at saturation over each of these
 * connection counts, the higher of the two: which one is its best differs from machine to machine.
 */
const BARE_SATURATION_CONNECTIONS = [10, 100];

interface BenchPlan extends Plan {
  warmUpMs: number;
  /**
   * After the saturated warm-up, each app takes each request at 100/s over 1 connection for
   * this long, until V8 has stopped re-optimising (see `warmUp`).
   */
  settlingWarmUpMs: number;
  /** How long an app is left alone after start-up before its idle RSS is read. */
  idleSettleMs: number;
  /** Measure the bare app against its twin (`measureNoiseFloor`): a few minutes. */
  noiseFloor: boolean;
  /**
   * How many times each app is launched for the ack cells: on each store a fresh payops and a
   * fresh bare app per launch (the twin and its bare app alike), each cell's runs dealt over the
   * launches and pooled. Two launches of one build can differ by a third in p99 for as long as
   * they run (session 13), so a cell measured on one launch of each app is partly a draw of
   * launches; pooled over several, that draw evens out. Each launch costs a start-up and a
   * warm-up (about a minute and a quarter); the runs per cell stay the same.
   */
  launches: number;
}

const PLANS: Record<Results['mode'], BenchPlan> = {
  full: {
    rates: [100, 500],
    connections: [1, 10, 100],
    rateRunMs: 500,
    saturateRunMs: 500,
    rateSlices: 16,
    saturateSlices: 4,
    saturateCap: 6_000,
    fullCycleConnections: [10, 100],
    fullCycleSlices: 8,
    fullCycleRunMs: 1_500,
    sequentialApprovals: 200,
    bulkApprovals: 1_000,
    bulkConnections: 16,
    warmUpMs: 1_000,
    settlingWarmUpMs: 15_000,
    idleSettleMs: 1_000,
    noiseFloor: true,
    launches: 3,
  },
  quick: {
    rates: [100, 500],
    connections: [10],
    rateRunMs: 400,
    saturateRunMs: 300,
    rateSlices: 1,
    saturateSlices: 1,
    saturateCap: 1_500,
    fullCycleConnections: [10],
    fullCycleSlices: 1,
    fullCycleRunMs: 800,
    sequentialApprovals: 40,
    bulkApprovals: 200,
    bulkConnections: 16,
    warmUpMs: 200,
    settlingWarmUpMs: 500,
    idleSettleMs: 300,
    // Its twin barely warmed up, a quick run's noise floor would say nothing.
    noiseFloor: false,
    launches: 1,
  },
};

/** Closers run in reverse order, each once, on success, failure and Ctrl-C alike. */
class Cleanup {
  readonly #closers: Array<() => unknown> = [];

  add(close: () => unknown): void {
    this.#closers.push(close);
  }

  async run(): Promise<void> {
    for (let close = this.#closers.pop(); close; close = this.#closers.pop()) {
      try {
        await close();
      } catch (error) {
        console.error('bench: while stopping:', error);
      }
    }
  }
}

interface Partners {
  ctx: BenchContext & { plan: BenchPlan };
  sandbox: PaymentsSandbox;
  emulation: SlackEmulation;
}

/** One launch of the apps: its partners, its bare app, and which launch it is, from 0. */
interface Setup extends Partners {
  bare: ChildApp;
  profile: boolean;
  launch: number;
}

/** One ack cell's runs of each app in one launch; `pooled` makes them an `AckRow`. */
interface AckCellRuns extends Omit<AckRow, 'payops' | 'bare' | 'p99ByLaunch'> {
  payops: LoadResult[];
  bare: LoadResult[];
}

async function main(): Promise<void> {
  const mode: Results['mode'] = process.argv.includes('--quick') ? 'quick' : 'full';
  const profile = process.argv.includes('--profile');
  const startedAt = new Date();
  const cpuAtStart = cpuTimes();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const cleanup = new Cleanup();
  process.once('SIGINT', () => {
    console.error('\nbench: interrupted, stopping everything');
    cleanup.run().finally(() => process.exit(130));
  });
  try {
    const plan = planWith(PLANS[mode], launchesOption());
    progress('building payops and the bare app (both run compiled, as in production)');
    buildApps();
    const load = new LoadWorker();
    cleanup.add(() => load.close());
    const engines: EngineResults[] = [];
    const bareMemories: Memory[] = [];
    for (const open of storesToRun()) {
      const store = await open();
      cleanup.add(() => store.dispose());
      const { engine, bareMemory } = await benchEngine(plan, load, store, profile);
      engines.push(engine);
      bareMemories.push(bareMemory);
    }
    const noiseFloor = plan.noiseFloor ? await measureNoiseFloor(plan, load) : [];
    const partial = {
      mode,
      launches: plan.launches,
      machine: machine(cpuAtStart),
      startedAt: startedAt.toISOString(),
      elapsedSec: (Date.now() - startedAt.getTime()) / 1000,
      bareAckPerSec: Math.max(
        ...engines.flatMap((engine) =>
          engine.ack
            .filter((row) => row.load === 'max' && row.request === 'balance')
            .map((row) => row.bare.perSec),
        ),
      ),
      bareMemory: {
        idleMb: bareMemories[0]?.idleMb ?? Number.NaN,
        peakMb: Math.max(...bareMemories.map((memory) => memory.peakMb)),
      },
      engines,
      noiseFloor,
    };
    const results: Results = { ...partial, targets: checkTargets(partial) };
    printReport(results);
    writeResults(`${RESULTS_DIR}latest.json`, results);
    console.log(`\nJSON: ${RESULTS_DIR}latest.json`);
  } finally {
    await cleanup.run();
  }
}

/** `--launches=N`: N launches of each app instead of the plan's (`BenchPlan.launches`). */
function launchesOption(): number | undefined {
  const option = process.argv.find((arg) => arg.startsWith('--launches='));
  if (option === undefined) return undefined;
  const launches = Number(option.slice('--launches='.length));
  if (!Number.isInteger(launches) || launches < 1) {
    throw new UsageError(`${option} is not a whole number of launches, 1 or more`);
  }
  return launches;
}

/** The plan with `launches` if given: no more than a fixed-rate cell has runs to deal out. */
function planWith(plan: BenchPlan, launches = plan.launches): BenchPlan {
  if (launches > plan.rateSlices) {
    throw new UsageError(
      `${launches} launches, but a fixed-rate cell has ${plan.rateSlices} run${plan.rateSlices === 1 ? '' : 's'} per app in this mode: some launches would measure nothing`,
    );
  }
  return { ...plan, launches };
}

const benchStarted = performance.now();

function progress(what: string): void {
  console.error(`bench [${((performance.now() - benchStarted) / 1000).toFixed(0)} s] ${what}`);
}

function storesToRun(): Array<() => Promise<BenchStore>> {
  const serverUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    console.error('bench: no DATABASE_URL or TEST_DATABASE_URL, so PGlite only');
    return [embeddedStore];
  }
  return [embeddedStore, () => postgresStore(serverUrl)];
}

/**
 * Every measurement of payops on one store, over `plan.launches` launches, each a fresh payops
 * and a fresh bare app on a fresh sandbox and emulation. The ack cells are pooled over the
 * launches; the full cycle, the approvals and the idle RSS are the first launch's, and a peak
 * RSS is the highest of any launch.
 */
async function benchEngine(
  plan: BenchPlan,
  load: LoadWorker,
  store: BenchStore,
  profile: boolean,
): Promise<{ engine: EngineResults; bareMemory: Memory }> {
  // PGlite's first start runs initdb, whose memory the process keeps for good; a restart on
  // the same folder (every start after the first) does not. Both are reported; the load runs
  // on restarted processes.
  let firstStartIdleMb: number | undefined;
  if (store.engine === 'pglite') {
    progress('pglite: first start on a fresh folder');
    firstStartIdleMb = await withFreshPartners(plan, load, (partners) =>
      running(startPayops({ ...partners, profile }, store, 'first-start'), (first) =>
        idleRss(first, plan),
      ),
    );
  }
  const launches: LaunchResults[] = [];
  for (let launch = 0; launch < plan.launches; launch++) {
    launches.push(
      await withFreshPartners(plan, load, (partners) =>
        benchLaunch({ ...partners, profile, launch }, store),
      ),
    );
  }
  const [first] = launches;
  if (!first?.once) throw new Error('bench: a plan needs at least one launch');
  const highest = (peak: (launch: LaunchResults) => number) => Math.max(...launches.map(peak));
  return {
    engine: {
      engine: store.engine,
      ack: pooled(launches.map((launch) => launch.ack)),
      ...first.once,
      memory: {
        idleMb: first.payopsMemory.idleMb,
        peakMb: highest((launch) => launch.payopsMemory.peakMb),
        firstStartIdleMb,
      },
    },
    bareMemory: {
      idleMb: first.bareMemory.idleMb,
      peakMb: highest((launch) => launch.bareMemory.peakMb),
    },
  };
}

interface LaunchResults {
  ack: AckCellRuns[];
  /** What only the first launch measures. */
  once?: Pick<EngineResults, 'fullCycle' | 'clickToProvider' | 'createdPerSec' | 'bulkApprovals'>;
  payopsMemory: Memory;
  bareMemory: Memory;
}

/**
 * One launch of payops and the bare app on one store. Order matters: with the provider at 2 s,
 * reads pile up inside payops (16 in flight, 2 s each) for minutes, so that phase comes last.
 */
async function benchLaunch(base: Omit<Setup, 'bare'>, store: BenchStore): Promise<LaunchResults> {
  const { ctx, sandbox } = base;
  const number = base.launch + 1;
  const step = (what: string) =>
    progress(`${store.engine}, launch ${number} of ${ctx.plan.launches}: ${what}`);
  step('start');
  return running(startBare(`bare-bolt-${store.engine}-${number}`), (bare) =>
    running(startPayops(base, store, `load-${number}`), async (payops) => {
      const setup: Setup = { ...base, bare };
      const idleMb = await idleRss(payops, ctx.plan);
      const bareIdleMb = bare.rssMb();
      const peak = new PeakRss([payops, bare]);
      // Where memory grows: each step's progress line says the peak so far.
      // And the bench's own heap: the sandbox and the emulation keep what they were sent.
      const measured = (what: string) =>
        step(
          `${what} (payops RSS peak so far ${peak.peakMb(payops).toFixed(0)} MB; bench heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB)`,
        );
      // A request decided before any load: Approve clicks on it are refused, which keeps click
      // runs on the acknowledgement path (and the provider out of them).
      const decided = (await createRequests(ctx, payops, 1)).cards[0] as Card;
      await approveOneByOne(ctx, payops, [decided]);
      await warmUp(setup, payops, decided);

      measured('ack latency, provider 0 ms');
      const ack = await ackMatrix(setup, payops, decided, 0);
      const once =
        base.launch === 0 ? await measureOnce(setup, payops, decided, measured) : undefined;

      measured(`ack latency, provider ${SLOW_PROVIDER_MS} ms`);
      sandbox.setLatency(SLOW_PROVIDER_MS);
      ack.push(...(await ackMatrix(setup, payops, decided, SLOW_PROVIDER_MS)));
      peak.stop();
      measured('done');
      // Its backlog of reads then drains in a second or two, and payops stops by itself on
      // SIGTERM instead of being killed: the next launch opens the PGlite folder it closed.
      sandbox.setLatency(0);
      return {
        ack,
        once,
        payopsMemory: { idleMb, peakMb: peak.peakMb(payops) },
        bareMemory: { idleMb: bareIdleMb, peakMb: peak.peakMb(bare) },
      };
    }),
  );
}

/** The full cycle and the approvals, measured on the first launch only. */
async function measureOnce(
  setup: Setup,
  payops: ChildApp,
  decided: Card,
  measured: (what: string) => void,
): Promise<NonNullable<LaunchResults['once']>> {
  const { ctx } = setup;
  measured('full cycle');
  const fullCycle = [];
  for (const users of ctx.plan.fullCycleConnections) {
    fullCycle.push(await fullCycleCell(setup, payops, decided, users));
  }
  measured('approvals');
  const sequential = ctx.plan.sequentialApprovals;
  const created = await createRequests(ctx, payops, sequential + ctx.plan.bulkApprovals);
  const clickToProvider = await approveOneByOne(ctx, payops, created.cards.slice(0, sequential));
  const bulkApprovals = await approveInBulk(ctx, payops, created.cards.slice(sequential));
  ctx.arrivals.forgetSeen();
  return { fullCycle, clickToProvider, createdPerSec: created.perSec, bulkApprovals };
}

/**
 * One full-cycle run of payops; then both apps, each request: saturated for `warmUpMs`, then 100/s
 * over 1 connection for `settlingWarmUpMs`. The second part is for V8: code optimised under
 * saturation meets other types and timer states at a low rate, and is deoptimised and compiled
 * again. Measured on payops after the saturated part alone, at 100/s over 1 connection: 37, 22,
 * 12, 10, 9 and 3 functions compiled in each 10 s that followed, and 28, 13, 9, 8, 8 and 3 acks of
 * 1,000 over 1 ms (p99 2.08 ms in the first 10 s, 0.76 ms in the sixth). The first cell measured
 * fell in that stretch, and payops goes first in it.
 */
async function warmUp(setup: Setup, payops: ChildApp, decided: Card): Promise<void> {
  const { ctx, bare } = setup;
  // The bench's own side of a full cycle (its users, the sandbox's reads, the emulation taking
  // answers) is code no other run warms; first, before the runs V8 settles with.
  const users = Math.max(...ctx.plan.fullCycleConnections);
  await fullCycleRun(ctx, payops, users);
  ctx.arrivals.forgetSeen();
  await warmUpAlike(ctx, [payops, bare], decided);
}

/**
 * Each app, each request: saturated for `warmUpMs`, then 100/s over 1 connection for
 * `settlingWarmUpMs` (why: `warmUp`). An app that answers on response_urls is waited for.
 */
async function warmUpAlike(
  ctx: Setup['ctx'],
  apps: readonly ChildApp[],
  decided: Card,
): Promise<void> {
  const saturated: AckLoad = {
    shape: { kind: 'saturate' },
    connections: 10,
    durationMs: ctx.plan.warmUpMs,
  };
  const settling: AckLoad = {
    shape: { kind: 'rate', perSecond: 100 },
    connections: 1,
    durationMs: ctx.plan.settlingWarmUpMs,
  };
  for (const load of [saturated, settling]) {
    for (const request of ['balance', 'click'] as const) {
      for (const app of apps) {
        await ackRun(ctx, app, request, load, { decided, settle: app.answersOnResponseUrl });
      }
    }
  }
  ctx.arrivals.forgetSeen();
}

/**
 * Ack latency of `subject` (payops) and the bare app, cell by cell: by default each fixed rate
 * over each number of connections, and saturation (`max`) with the provider at 0 ms. At 2 s,
 * clicks go first and `/pay balance` answers are not waited for: they take minutes to drain.
 * Each cell gets this launch's share of its runs (`slicesInLaunch`).
 */
async function ackMatrix(
  setup: Pick<Setup, 'ctx' | 'bare' | 'launch'>,
  subject: ChildApp,
  decided: Card,
  providerMs: number,
  loads = ackLoads(setup.ctx.plan, providerMs),
): Promise<AckCellRuns[]> {
  const { ctx, bare, launch } = setup;
  const requests: AckRequest[] = providerMs === 0 ? ['balance', 'click'] : ['click', 'balance'];
  const cells: AckCellRuns[] = [];
  for (const request of requests) {
    const settle = providerMs === 0 || request === 'click';
    for (const [index, { label, load }] of loads.entries()) {
      const measure = (app: ChildApp) =>
        ackRun(ctx, app, request, load, {
          decided,
          settle: settle && app.answersOnResponseUrl,
        });
      const { rateSlices, saturateSlices } = ctx.plan;
      const slices = load.shape.kind === 'rate' ? rateSlices : saturateSlices;
      const runs = await inTurns(
        slicesInLaunch(slices, ctx.plan, launch),
        index + launch,
        () => measure(subject),
        () => measure(bare),
      );
      cells.push({
        providerMs,
        request,
        load: label,
        connections: load.connections,
        ...runs,
      });
      ctx.arrivals.forgetSeen();
    }
  }
  return cells;
}

/** This launch's share of a cell's `slices` runs per app, dealt as evenly as they go. */
function slicesInLaunch(slices: number, plan: BenchPlan, launch: number): number {
  return Math.floor(slices / plan.launches) + (launch < slices % plan.launches ? 1 : 0);
}

/** Each cell's runs of every launch, pooled: percentiles over all their samples. */
function pooled(launches: ReadonlyArray<readonly AckCellRuns[]>): AckRow[] {
  const key = (cell: AckCellRuns) =>
    `${cell.providerMs} ${cell.request} ${cell.load} ${cell.connections}`;
  return (launches[0] ?? []).map((cell, index) => {
    const runs = launches.map((launch) => launch[index]);
    // Every launch measures the same cells in the same order; pooling others would mislead.
    if (runs.some((other) => other === undefined || key(other) !== key(cell))) {
      throw new Error(`bench: launches measured different cells at ${key(cell)}`);
    }
    const all = runs as AckCellRuns[];
    return {
      ...cell,
      payops: ackStats(all.flatMap((other) => other.payops)),
      bare: ackStats(all.flatMap((other) => other.bare)),
      // A launch dealt none of a cell's runs (more launches than a saturation cell has) has no p99.
      p99ByLaunch: all
        .filter((launch) => launch.payops.length > 0)
        .map((launch) => ({
          subject: ackStats(launch.payops).p99,
          bare: ackStats(launch.bare).p99,
        })),
    };
  });
}

/**
 * The bare app against a second copy of itself (its twin), over the fixed-rate cells of the ack
 * matrix, in turns and over as many launches of both, exactly as payops is measured: what p99
 * ratios two identical apps show on this machine with this many samples. A ratio payops shows
 * that its twin also shows is this machine's noise, not payops. Measured after both stores
 * (nothing here reads a store or calls the provider), each launch on a fresh sandbox and
 * emulation, both apps warmed up alike first.
 */
async function measureNoiseFloor(plan: BenchPlan, load: LoadWorker): Promise<NoiseFloorRow[]> {
  // The twin only acks: any request number and message will do for its clicks.
  const decided: Card = { id: 1, ts: '1700000000.000100' };
  const fixedRate = ackLoads(plan, 0).filter(({ label }) => label !== 'max');
  const launches: AckCellRuns[][] = [];
  for (let launch = 0; launch < plan.launches; launch++) {
    const number = launch + 1;
    progress(
      `noise floor, launch ${number} of ${plan.launches}: the bare app against a second copy of itself`,
    );
    launches.push(
      await withFreshPartners(plan, load, ({ ctx }) =>
        running(startBare(`bare-bolt-${number}-twin`), (twin) =>
          running(startBare(`bare-bolt-${number}-for-twin`), async (bare) => {
            await warmUpAlike(ctx, [twin, bare], decided);
            return ackMatrix({ ctx, bare, launch }, twin, decided, 0, fixedRate);
          }),
        ),
      ),
    );
  }
  return pooled(launches).map(
    ({ request, load: label, connections, payops, bare, p99ByLaunch }) => ({
      request,
      load: label,
      connections,
      twin: payops,
      bare,
      p99ByLaunch,
    }),
  );
}

/**
 * A new Payments sandbox and Slack emulation (provider at 0 ms) for `work`, closed after it:
 * no phase carries what another phase sent them.
 */
async function withFreshPartners<T>(
  plan: BenchPlan,
  load: LoadWorker,
  work: (partners: Partners) => Promise<T>,
): Promise<T> {
  const sandbox = await startPaymentsSandbox({ latencyMs: 0 });
  const emulation = await startSlackEmulation();
  const arrivals = new Arrivals(emulation, sandbox);
  try {
    const ctx = { requests: new SlackRequests(emulation), load, arrivals, plan };
    return await work({ ctx, sandbox, emulation });
  } finally {
    arrivals.close();
    await Promise.all([sandbox.close(), emulation.close()]);
  }
}

/** An app started for `work` and stopped after it, whatever happens. */
async function running<T>(
  starting: Promise<ChildApp>,
  work: (app: ChildApp) => Promise<T>,
): Promise<T> {
  const app = await starting;
  try {
    return await work(app);
  } finally {
    await app.stop();
  }
}

/** The floor: Bolt's own HTTP receiver and handlers that only ack (bench/bare-bolt.ts). */
function startBare(name: string): Promise<ChildApp> {
  return ChildApp.start({
    name,
    script: BARE_SCRIPT,
    env: {
      SLACK_BOT_TOKEN: DEFAULT_SLACK.botToken,
      SLACK_SIGNING_SECRET: DEFAULT_SLACK.signingSecret,
      SLACK_BOT_ID: DEFAULT_SLACK.botId,
      SLACK_BOT_USER_ID: DEFAULT_SLACK.botUserId,
    },
    logFile: `${RESULTS_DIR}${name}.log`,
    answersOnResponseUrl: false,
  });
}

/**
 * Full cycles of `users`, in turns with the bare app acknowledging `/pay balance` at saturation
 * over each of BARE_SATURATION_CONNECTIONS: the share is taken of a rate measured in the same
 * minutes, not of the best moment of a whole run.
 */
async function fullCycleCell(
  setup: Setup,
  payops: ChildApp,
  decided: Card,
  users: number,
): Promise<FullCycle> {
  const { ctx, bare } = setup;
  // One list of runs per connection count, each pooled on its own.
  const bareRuns = BARE_SATURATION_CONNECTIONS.map(() => [] as LoadResult[]);
  const runs = await inTurns(
    ctx.plan.fullCycleSlices,
    0,
    async () => {
      const run = await fullCycleRun(ctx, payops, users);
      ctx.arrivals.forgetSeen();
      return run;
    },
    async () => {
      for (const [index, connections] of BARE_SATURATION_CONNECTIONS.entries()) {
        const load: AckLoad = {
          shape: { kind: 'saturate' },
          connections,
          durationMs: ctx.plan.saturateRunMs,
        };
        bareRuns[index]?.push(await ackRun(ctx, bare, 'balance', load, { decided, settle: false }));
      }
    },
  );
  return fullCycleStats(users, runs.payops, bareRuns);
}

/**
 * `slices` runs of each app, payops and the bare app taking turns, and alternating which goes
 * first (from `offset`, so consecutive cells start with different apps): slow moments and drifts
 * of the machine are spread over both.
 */
async function inTurns<P, B>(
  slices: number,
  offset: number,
  runPayops: () => Promise<P>,
  runBare: () => Promise<B>,
): Promise<{ payops: P[]; bare: B[] }> {
  const payops: P[] = [];
  const bare: B[] = [];
  for (let slice = 0; slice < slices; slice++) {
    const payopsFirst = (offset + slice) % 2 === 0;
    if (payopsFirst) payops.push(await runPayops());
    bare.push(await runBare());
    if (!payopsFirst) payops.push(await runPayops());
  }
  return { payops, bare };
}

/** Each fixed rate over each number of connections; saturation only with a fast provider. */
function ackLoads(plan: Plan, providerMs: number): Array<{ label: string; load: AckLoad }> {
  const loads: Array<{ label: string; load: AckLoad }> = [];
  for (const connections of plan.connections) {
    for (const perSecond of plan.rates) {
      const shape = { kind: 'rate', perSecond } as const;
      loads.push({
        label: `${perSecond}/s`,
        load: { shape, connections, durationMs: plan.rateRunMs },
      });
    }
    if (providerMs === 0) {
      const shape = { kind: 'saturate' } as const;
      loads.push({ label: 'max', load: { shape, connections, durationMs: plan.saturateRunMs } });
    }
  }
  return loads;
}

function startPayops(
  setup: Pick<Setup, 'sandbox' | 'emulation' | 'profile'>,
  store: BenchStore,
  run: string,
): Promise<ChildApp> {
  const { sandbox, emulation } = setup;
  return ChildApp.start({
    name: `payops-${store.engine}`,
    script: PAYOPS_START.script,
    env: { ...rehearsalEnv(sandbox, emulation), LOG_LEVEL: 'warn', ...store.env },
    logFile: `${RESULTS_DIR}payops-${store.engine}-${run}.log`,
    nodeOptions: [
      ...PAYOPS_START.nodeOptions,
      ...(setup.profile ? ['--cpu-prof', `--cpu-prof-dir=${RESULTS_DIR}profiles`] : []),
    ],
  });
}

/** RSS once the app has been left alone for a moment after start-up. */
async function idleRss(app: ChildApp, plan: BenchPlan): Promise<number> {
  await sleep(plan.idleSettleMs);
  return app.rssMb();
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

function machine(stealAtStart: CpuTimes): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const now = cpuTimes();
  const total = now.total - stealAtStart.total;
  return {
    cpus: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    node: process.version,
    kernel: release(),
    stealPct: total > 0 ? ((now.steal - stealAtStart.steal) / total) * 100 : 0,
  };
}

interface CpuTimes {
  total: number;
  steal: number;
}

/**
 * All CPUs' time so far, and the part the hypervisor ran something else (`steal`): on a shared
 * VM, what was stolen during a run explains figures no app caused.
 */
function cpuTimes(): CpuTimes {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  return { total: fields.reduce((sum, value) => sum + value, 0), steal: fields[7] ?? 0 };
}

/** A bad option: said in one line, without a stack. */
class UsageError extends Error {}

await main().catch((error: unknown) => {
  if (!(error instanceof UsageError)) throw error;
  console.error(`bench: ${error.message}`);
  process.exitCode = 2;
});
