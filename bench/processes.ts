import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sleep } from './load.ts';

/**
 * The apps under test, each in a process of its own as production runs them
 * (`node <script>`, compiled), on a loopback port picked here; their RSS read from /proc.
 */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A first PGlite initialisation alone takes about 3 s. */
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** A process started with `--cpu-prof` writes its profiles as it exits: tens of MB, seconds. */
const PROFILED_STOP_GRACE_MS = 60_000;

/**
 * package.json's `start` script, `node [options…] <script>`, taken apart: how production runs
 * payops, which the bench and the built-process test both run exactly.
 */
export function npmStartCommand(): { nodeOptions: string[]; script: string } {
  const start = (
    JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const [program, ...words] = start.trim().split(/\s+/);
  const script = words.pop();
  if (program !== 'node' || !script || words.some((word) => !word.startsWith('--'))) {
    throw new Error(`npm start is "${start}", not "node [--options] <script>"`);
  }
  return { nodeOptions: words, script };
}

export interface ChildAppOptions {
  name: string;
  /** Relative to the repository, e.g. `dist/main.js` (a `.ts` script runs under tsx). */
  script: string;
  env: Record<string, string>;
  /** Where its stdout and stderr go. */
  logFile: string;
  /** Extra Node options, e.g. `--cpu-prof`. */
  nodeOptions?: string[];
  /** False for an app that only acks: nothing sent to it is answered on its response_url. */
  answersOnResponseUrl?: boolean;
}

export class ChildApp {
  readonly eventsUrl: string;
  readonly answersOnResponseUrl: boolean;
  readonly #child: ChildProcess;
  readonly #exited: Promise<unknown>;
  readonly #stopGraceMs: number;
  #exitCode: number | null | undefined;

  private constructor(
    readonly name: string,
    port: number,
    options: ChildAppOptions,
  ) {
    this.eventsUrl = `http://127.0.0.1:${port}/slack/events`;
    this.answersOnResponseUrl = options.answersOnResponseUrl ?? true;
    this.#stopGraceMs = options.nodeOptions?.includes('--cpu-prof')
      ? PROFILED_STOP_GRACE_MS
      : STOP_GRACE_MS;
    const log = openSync(options.logFile, 'w');
    this.#child = spawn(
      process.execPath,
      [
        ...(options.nodeOptions ?? []),
        ...(options.script.endsWith('.ts') ? ['--import', 'tsx'] : []),
        options.script,
      ],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(port) },
        stdio: ['ignore', log, log],
      },
    );
    closeSync(log);
    // Whatever happens to the bench, its children die with it.
    const kill = () => this.#child.kill('SIGKILL');
    process.once('exit', kill);
    this.#exited = once(this.#child, 'exit').then(([code]) => {
      process.off('exit', kill);
      this.#exitCode = code as number | null;
    });
  }

  /** Starts it on a free port; resolves once Bolt answers on `/slack/events`. */
  static async start(options: ChildAppOptions): Promise<ChildApp> {
    const app = new ChildApp(options.name, await freePort(), options);
    try {
      await app.#ready(options.logFile);
    } catch (error) {
      await app.stop();
      throw error;
    }
    return app;
  }

  get pid(): number {
    return this.#child.pid as number;
  }

  /** Resident set size now, in MB (VmRSS of /proc/PID/status). */
  rssMb(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kb === undefined) throw new Error(`${this.name}: no VmRSS in /proc/${this.pid}/status`);
    return Number(kb) / 1024;
  }

  /** SIGTERM, as a deploy stops it (so `--cpu-prof` gets written); SIGKILL after a grace time. */
  async stop(): Promise<void> {
    if (this.#exitCode !== undefined) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), this.#stopGraceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  /** `ssl_check=1` is answered by Bolt itself, unsigned: it listens only once fully started. */
  async #ready(logFile: string): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.#exitCode !== undefined) {
        throw new Error(`${this.name} exited (code ${this.#exitCode}) at start-up; see ${logFile}`);
      }
      const status = await fetch(this.eventsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'ssl_check=1',
        signal: AbortSignal.timeout(1_000),
      }).then(
        (response) => response.status,
        () => undefined,
      );
      if (status === 200) return;
      await sleep(100);
    }
    throw new Error(`${this.name} was not ready within ${READY_TIMEOUT_MS} ms; see ${logFile}`);
  }
}

/** The highest RSS of each app seen while sampling (every 50 ms). */
export class PeakRss {
  readonly #peaks = new Map<ChildApp, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(readonly apps: ChildApp[]) {
    this.#timer = setInterval(() => this.#sample(), 50);
    this.#sample();
  }

  peakMb(app: ChildApp): number {
    return this.#peaks.get(app) ?? Number.NaN;
  }

  stop(): void {
    this.#sample();
    clearInterval(this.#timer);
  }

  #sample(): void {
    for (const app of this.apps) {
      try {
        this.#peaks.set(app, Math.max(this.#peaks.get(app) ?? 0, app.rssMb()));
      } catch {
        // It has exited: its peak so far stands.
      }
    }
  }
}

/** A port nothing listens on: bound on loopback by the OS, then released for the child. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}
