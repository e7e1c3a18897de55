import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LatencySummary } from './load.ts';
import type { AckRequest, AckStats, BulkApprovals, FullCycle } from './measure.ts';

/** What a bench run found, its checks against the targets of issue 5, as a table and as JSON. */

export type Engine = 'pglite' | 'postgres';

export interface Machine {
  cpus: number;
  cpuModel: string;
  node: string;
  kernel: string;
  /** Share of the CPUs' time the hypervisor gave to others during the run (`steal`, /proc/stat). */
  stealPct: number;
}

export interface AckRow {
  providerMs: number;
  request: AckRequest;
  /** `100/s`, `500/s`, or `max` for a saturation run. */
  load: string;
  connections: number;
  payops: AckStats;
  bare: AckStats;
  p99ByLaunch: LaunchP99[];
}

/**
 * One launch's own p99 of a cell: the app measured (payops, or the twin) and the bare app
 * launched beside it. How far one app's launches land apart is the noise pooling spreads.
 */
export interface LaunchP99 {
  subject: number;
  bare: number;
}

/**
 * The bare app against its twin (a second copy of itself), measured as payops is: `twin` in the
 * place of payops. The p99 ratios two identical apps show on this machine at this sample size.
 */
export interface NoiseFloorRow {
  request: AckRequest;
  load: string;
  connections: number;
  twin: AckStats;
  bare: AckStats;
  p99ByLaunch: LaunchP99[];
}

export interface Memory {
  idleMb: number;
  peakMb: number;
  /** PGlite only: idle RSS of the very first start on a fresh folder (initdb included). */
  firstStartIdleMb?: number | undefined;
}

export interface EngineResults {
  engine: Engine;
  ack: AckRow[];
  fullCycle: FullCycle[];
  clickToProvider: LatencySummary;
  /** Payout requests created per second (alice's `/pay payout` until she is told it exists). */
  createdPerSec: number;
  bulkApprovals: BulkApprovals;
  memory: Memory;
}

export interface Results {
  mode: 'quick' | 'full';
  /** Launches of each app the ack cells were pooled over, per store and for the noise floor. */
  launches: number;
  machine: Machine;
  startedAt: string;
  elapsedSec: number;
  /**
   * Bolt answers per second at saturation with the bare app, the best of its `max` cells of
   * `/pay` over the whole run (for reference: a full cycle is compared with the bare app's rate
   * measured in turns with it, `FullCycle.bareAckPerSec`).
   */
  bareAckPerSec: number;
  bareMemory: Memory;
  engines: EngineResults[];
  /** Empty in quick mode. */
  noiseFloor: NoiseFloorRow[];
  targets: TargetCheck[];
}

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean;
}

const ACK_P99_RATIO = 1.5;
const ACK_P99_MS = 50;
const FULL_CYCLE_SHARE = 0.4;
const CLICK_P50_MS = 5;
const CLICK_P99_MS = 25;
/** "The same order on PGlite": read here as within twice PostgreSQL's limits. */
const PGLITE_CLICK_FACTOR = 2;
const APPROVALS_PER_SEC = 500;
const RSS_RATIO = 1.3;
const PGLITE_EXTRA_MB = 150;

export function checkTargets(results: Omit<Results, 'targets'>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const postgres = results.engines.find((engine) => engine.engine === 'postgres');
  for (const engine of results.engines) {
    const fixedRate = engine.ack.filter((row) => row.load !== 'max');
    for (const providerMs of [0, 2000]) {
      const rows = fixedRate.filter((row) => row.providerMs === providerMs);
      const worst = maxBy(rows, (row) => p99Ratio(row.payops, row.bare));
      if (worst) {
        const ratio = p99Ratio(worst.payops, worst.bare);
        const mean = geometricMean(rows.map((row) => p99Ratio(row.payops, row.bare)));
        checks.push({
          target: `${engine.engine}: ack p99 ≤ ${ACK_P99_RATIO}× bare, provider ${providerMs} ms`,
          measured: `worst ${ratio.toFixed(2)}× (${ms(worst.payops.p99)} vs ${ms(worst.bare.p99)}, ${cell(worst)}); geometric mean of ${rows.length} cells ${mean.toFixed(2)}×`,
          pass: ratio <= ACK_P99_RATIO,
        });
      }
    }
    const slowest = maxBy(fixedRate, (row) => row.payops.p99);
    if (slowest) {
      checks.push({
        target: `${engine.engine}: ack p99 < ${ACK_P99_MS} ms at a fixed rate`,
        measured: `worst ${ms(slowest.payops.p99)} (${cell(slowest)}, provider ${slowest.providerMs} ms)`,
        pass: slowest.payops.p99 < ACK_P99_MS,
      });
    }
    const best = maxBy(engine.fullCycle, fullCycleShare);
    if (best) {
      const share = fullCycleShare(best);
      checks.push({
        target: `${engine.engine}: full cycle ≥ ${FULL_CYCLE_SHARE * 100} % of bare ack-only rate`,
        measured: `${percent(share)} (${rate(best.perSec)} vs ${rate(best.bareAckPerSec)} in turns, ${best.connections} users)`,
        pass: share >= FULL_CYCLE_SHARE,
      });
    }
    const factor = engine.engine === 'postgres' ? 1 : PGLITE_CLICK_FACTOR;
    const { p50, p99 } = engine.clickToProvider;
    checks.push({
      target: `${engine.engine}: click → provider p50 < ${CLICK_P50_MS * factor} ms, p99 < ${CLICK_P99_MS * factor} ms`,
      measured: `p50 ${ms(p50)}, p99 ${ms(p99)}`,
      pass: p50 < CLICK_P50_MS * factor && p99 < CLICK_P99_MS * factor,
    });
    const bulk = engine.bulkApprovals;
    checks.push({
      target: `${engine.engine}: exactly one provider call per approval`,
      measured: `${bulk.payouts} createPayout for ${bulk.approvals} approvals`,
      pass: bulk.payouts === bulk.approvals,
    });
  }
  if (postgres) {
    checks.push({
      target: `postgres: ≥ ${APPROVALS_PER_SEC} approvals/s end to end`,
      measured: rate(postgres.bulkApprovals.perSec),
      pass: postgres.bulkApprovals.perSec >= APPROVALS_PER_SEC,
    });
    const ratio = postgres.memory.peakMb / results.bareMemory.peakMb;
    checks.push({
      target: `postgres: RSS under load ≤ ${RSS_RATIO}× bare`,
      measured: `${ratio.toFixed(2)}× (${mb(postgres.memory.peakMb)} vs ${mb(results.bareMemory.peakMb)})`,
      pass: ratio <= RSS_RATIO,
    });
  }
  const pglite = results.engines.find((engine) => engine.engine === 'pglite');
  if (pglite) {
    // Without a PostgreSQL run, what payops may use without PGlite is the bare app's allowance.
    const basis = postgres
      ? { ...postgres.memory, name: 'on postgres' }
      : {
          idleMb: results.bareMemory.idleMb * RSS_RATIO,
          peakMb: results.bareMemory.peakMb * RSS_RATIO,
          name: 'allowed',
        };
    const extra = pglite.memory.peakMb - basis.peakMb;
    checks.push({
      target: `pglite: adds ≤ ~${PGLITE_EXTRA_MB} MB of RSS under load (restarted process)`,
      measured: `+${mb(extra)} (${mb(pglite.memory.peakMb)} vs ${mb(basis.peakMb)} ${basis.name})`,
      pass: extra <= PGLITE_EXTRA_MB,
    });
    const firstStart = pglite.memory.firstStartIdleMb;
    if (firstStart !== undefined) {
      const firstExtra = firstStart - basis.idleMb;
      checks.push({
        target: `pglite: adds ≤ ~${PGLITE_EXTRA_MB} MB of RSS at its first start (fresh folder, idle)`,
        measured: `+${mb(firstExtra)} (${mb(firstStart)} vs ${mb(basis.idleMb)} ${basis.name})`,
        pass: firstExtra <= PGLITE_EXTRA_MB,
      });
    }
  }
  return checks;
}

export function printReport(results: Results): void {
  const { machine } = results;
  console.log(
    `\npayops bench (${results.mode}) · ${machine.cpus} × ${machine.cpuModel} · Node ${machine.node} · ${results.elapsedSec.toFixed(0)} s · CPU stolen by the host: ${machine.stealPct.toFixed(1)} % · ack cells pooled over ${results.launches} launch${results.launches === 1 ? '' : 'es'} of each app`,
  );
  for (const engine of results.engines) {
    console.log(`\n== ${engine.engine} ==\n\n1. Ack latency (ms): payops vs bare Bolt, same run`);
    printTable(
      [
        'provider',
        'request',
        'load',
        'conns',
        'payops p50',
        'p99',
        'bare p50',
        'p99',
        'p99 ×',
        'errors',
        'shed',
      ],
      engine.ack.map((row) => [
        `${row.providerMs} ms`,
        row.request,
        row.load === 'max'
          ? `max (${rate(row.payops.perSec)} | ${rate(row.bare.perSec)})`
          : row.load,
        String(row.connections),
        ...latencyColumns(row.payops, row.bare),
        String(row.payops.failed + row.bare.failed),
        String(row.payops.shed),
      ]),
    );
    console.log(
      '\n2. Full cycle (/pay balance → provider → answer on response_url), provider 0 ms',
    );
    printTable(
      [
        'users',
        'commands/s',
        'runs, slowest–fastest',
        'bare acks/s in turns',
        'share',
        'p50 ms',
        'p99 ms',
      ],
      engine.fullCycle.map((run) => [
        String(run.connections),
        rate(run.perSec),
        `${Math.min(...run.runsPerSec).toFixed(0)}–${rate(Math.max(...run.runsPerSec))}`,
        rate(run.bareAckPerSec),
        percent(fullCycleShare(run)),
        fixed(run.latency.p50),
        fixed(run.latency.p99),
      ]),
    );
    const click = engine.clickToProvider;
    const bulk = engine.bulkApprovals;
    console.log(
      `\n3. Click → provider call, one at a time (n=${click.n}): p50 ${ms(click.p50)}, p99 ${ms(click.p99)}, max ${ms(click.max)}`,
    );
    console.log(
      `4. Approvals end to end: ${rate(bulk.perSec)} approvals/s (${bulk.approvals} approvals, ${bulk.payouts} createPayout); requests created at ${rate(engine.createdPerSec)}`,
    );
    const firstStart = engine.memory.firstStartIdleMb;
    console.log(
      `5. RSS: payops idle ${mb(engine.memory.idleMb)}, peak ${mb(engine.memory.peakMb)}${firstStart === undefined ? '' : ` (first start on a fresh folder: idle ${mb(firstStart)})`}; bare idle ${mb(results.bareMemory.idleMb)}, peak ${mb(results.bareMemory.peakMb)}`,
    );
  }
  if (results.noiseFloor.length > 0) printNoiseFloor(results.noiseFloor);
  console.log(
    `\nBare Bolt ack-only rate at saturation, best ack cell of the run: ${rate(results.bareAckPerSec)}\n\nTargets`,
  );
  printTable(
    ['', 'target', 'measured'],
    results.targets.map((check) => [check.pass ? 'PASS' : 'MISS', check.target, check.measured]),
  );
  console.log(`\n${noiseFloorSummary(results.noiseFloor)}`);
  if (results.launches > 1) console.log(launchSpread(results));
}

/**
 * Not a target: how far each app's launches land apart in the fixed-rate cells (each cell's
 * highest launch p99 over its lowest), which is what pooling over launches spreads over both.
 */
function launchSpread(results: Results): string {
  type Spread = { p99ByLaunch: LaunchP99[] };
  const describe = (rows: readonly Spread[], app: keyof LaunchP99) => {
    const spreads = rows.map((row) => {
      const p99s = row.p99ByLaunch.map((launch) => launch[app]);
      return Math.max(...p99s) / Math.min(...p99s);
    });
    return `${geometricMean(spreads).toFixed(2)}× (worst ${Math.max(...spreads).toFixed(2)}×)`;
  };
  const payops = results.engines.flatMap((engine) =>
    engine.ack.filter((row) => row.load !== 'max'),
  );
  const parts = [
    `payops ${describe(payops, 'subject')}`,
    `bare app ${describe([...payops, ...results.noiseFloor], 'bare')}`,
  ];
  if (results.noiseFloor.length > 0) parts.push(`twin ${describe(results.noiseFloor, 'subject')}`);
  return `Launch to launch (not a target): a fixed-rate cell's p99 on one app's highest launch over its lowest, geometric mean over the cells: ${parts.join(', ')}`;
}

function printNoiseFloor(rows: readonly NoiseFloorRow[]): void {
  console.log(
    '\n== noise floor ==\n\nAck latency (ms): the bare app against a second copy of itself, measured as payops is',
  );
  printTable(
    ['request', 'load', 'conns', 'twin p50', 'p99', 'bare p50', 'p99', 'p99 ×'],
    rows.map((row) => [
      row.request,
      row.load,
      String(row.connections),
      ...latencyColumns(row.twin, row.bare),
    ]),
  );
}

/** p50 and p99 of an app measured against the bare app, theirs, and the ratio of the p99s. */
function latencyColumns(subject: AckStats, bare: AckStats): string[] {
  return [
    fixed(subject.p50),
    fixed(subject.p99),
    fixed(bare.p50),
    fixed(bare.p99),
    p99Ratio(subject, bare).toFixed(2),
  ];
}

/**
 * Not a target: how often two identical apps miss the ack ratio here, which says how much a
 * payops miss of a few cells means.
 */
function noiseFloorSummary(rows: readonly NoiseFloorRow[]): string {
  const ratio = (row: NoiseFloorRow) => p99Ratio(row.twin, row.bare);
  const worst = maxBy(rows, ratio);
  if (!worst) return 'Noise floor: not measured (quick mode)';
  const over = rows.filter((row) => ratio(row) > ACK_P99_RATIO).length;
  return `Noise floor (not a target): the bare app's twin against the bare app, ${over} of ${rows.length} cells over ${ACK_P99_RATIO}×, worst ${ratio(worst).toFixed(2)}× (${ms(worst.twin.p99)} vs ${ms(worst.bare.p99)}, ${worst.request} ${worst.load} × ${worst.connections} conns)`;
}

export function writeResults(path: string, results: Results): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}

function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((text, column) => text.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  console.log(line(headers));
  for (const row of rows) console.log(line(row));
}

/** What the ack target judges: an app's p99 over the bare app's, in the same cell. */
function p99Ratio(subject: AckStats, bare: AckStats): number {
  return subject.p99 / bare.p99;
}

function geometricMean(values: readonly number[]): number {
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

function maxBy<T>(items: readonly T[], value: (item: T) => number): T | undefined {
  return items.reduce<T | undefined>(
    (best, item) => (best === undefined || value(item) > value(best) ? item : best),
    undefined,
  );
}

/** A full cycle's rate as a share of the bare app's ack-only rate measured in turns with it. */
function fullCycleShare(run: FullCycle): number {
  return run.perSec / run.bareAckPerSec;
}

function cell(row: AckRow): string {
  return `${row.request} ${row.load} × ${row.connections} conns`;
}

const fixed = (value: number) => value.toFixed(2);
const ms = (value: number) => `${value.toFixed(2)} ms`;
const mb = (value: number) => `${value.toFixed(0)} MB`;
const rate = (value: number) => `${value.toFixed(0)}/s`;
const percent = (value: number) => `${(value * 100).toFixed(0)} %`;
