import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { npmStartCommand } from '../../bench/processes.ts';
import { loadConfig, secretsOf } from '../../src/config.ts';
import { REHEARSAL_APPROVALS_CHANNEL, rehearsalEnv } from '../../src/rehearsal/rehearsal.ts';
import type { PaymentsSandbox, RecordedRequest } from '../../src/rehearsal/sandbox/payments-api.ts';
import type {
  BlockActionResult,
  SlackDriver,
  SlackEmulation,
} from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { keepForLeakScan, leakScanOn } from './leak-trail.ts';

/**
 * payops in a process of its own — its sources under tsx, or the build run by `npm start`'s own
 * command — configured only by its environment, between the test's Payments sandbox and Slack
 * emulation. Every process started here is killed by `cleanUpPayops`, and by the test process's
 * exit whatever happens, so none outlives the tests.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A process making a new PGlite folder takes about 20 s while the suite loads both cores. */
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** Node's arguments for the sources, run under tsx. */
const SOURCES = ['--import', 'tsx', 'src/main.ts'];

/** Node's arguments in `npm start` (package.json), which runs the built `dist/main.js`. */
export function npmStartArguments(): string[] {
  const { nodeOptions, script } = npmStartCommand();
  return [...nodeOptions, script];
}

/**
 * The rehearsal's environment, logging warnings (everything under the leak scan, which reads
 * it); each process gets its own port when spawned.
 */
export function payopsEnvironment(
  sandbox: PaymentsSandbox,
  slack: SlackEmulation,
  overrides: Record<string, string>,
): Record<string, string> {
  const level = leakScanOn() ? 'trace' : 'warn';
  return { ...rehearsalEnv(sandbox, slack), LOG_LEVEL: level, ...overrides };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Every process started since the last `cleanUpPayops`. */
const started = new Set<PayopsProcess>();

export class PayopsProcess {
  readonly exited: Promise<Exit>;
  /** `http://127.0.0.1:PORT/slack/events`, where Slack sends its signed requests. */
  readonly eventsUrl: string;
  readonly #child: ChildProcess;
  readonly #baseUrl: string;
  #output = '';
  #exit: Exit | undefined;

  constructor(
    readonly name: string,
    port: number,
    env: Record<string, string>,
    /** Node's arguments: the sources under tsx unless told otherwise. */
    nodeArguments = SOURCES,
  ) {
    this.#baseUrl = `http://127.0.0.1:${port}`;
    this.eventsUrl = `${this.#baseUrl}/slack/events`;
    this.#child = spawn(process.execPath, nodeArguments, {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (leakScanOn()) keepForLeakScan('secrets', secretsIn(env));
    const record = (chunk: Buffer) => {
      this.#output += chunk.toString();
    };
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      stream?.on('data', record);
      keepWhenEnded(stream);
    }
    // The last resort: whatever happens to the tests, this process dies with them.
    const killOnExit = () => this.#child.kill('SIGKILL');
    process.once('exit', killOnExit);
    this.exited = once(this.#child, 'exit').then(([code, signal]) => {
      process.off('exit', killOnExit);
      this.#exit = { code, signal };
      return this.#exit;
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** What it printed so far, stdout and stderr interleaved. */
  output(): string {
    return this.#output;
  }

  /** Resolves once `GET /readyz` answers 200; fails at once if the process exits first. */
  async ready(timeoutMs = READY_TIMEOUT_MS): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#exit) {
        throw new Error(`${this.name} exited (${describeExit(this.#exit)}) before it was ready`);
      }
      const status = await fetch(`${this.#baseUrl}/readyz`, { signal: AbortSignal.timeout(1_000) })
        .then((response) => response.status)
        .catch(() => undefined);
      if (status === 200) return this;
      await sleep(100);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms`);
  }

  /** SIGTERM, as a deploy stops it; SIGKILL if it has not exited within the grace time. */
  async stop(graceMs = STOP_GRACE_MS): Promise<Exit> {
    if (this.#exit) return this.#exit;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL: the process dies on the spot, with no chance to finish or clean up anything. */
  crash(): Promise<Exit> {
    if (!this.#exit) this.#child.kill('SIGKILL');
    return this.exited;
  }
}

/** What a process prints, for the leak scan: each stream whole, as a chunk may cut a secret in two. */
function keepWhenEnded(stream: Readable | null): void {
  if (stream === null || !leakScanOn()) return;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.once('end', () => keepForLeakScan('logs', Buffer.concat(chunks)));
}

/** The secrets a process is configured with; none when its configuration is refused. */
function secretsIn(env: Record<string, string>): string[] {
  try {
    return secretsOf(loadConfig(env));
  } catch {
    return [];
  }
}

/** Starts payops on a free port of its own; `ready()` waits until it serves. */
export async function spawnPayops(
  name: string,
  env: Record<string, string>,
  nodeArguments?: string[],
) {
  const payops = new PayopsProcess(name, await freePort(), env, nodeArguments);
  started.add(payops);
  return payops;
}

export async function startPayops(
  name: string,
  env: Record<string, string>,
  nodeArguments?: string[],
) {
  return (await spawnPayops(name, env, nodeArguments)).ready();
}

/** Stops every process the test started; after a failed test, prints what each one said. */
export async function cleanUpPayops(testFailed: boolean): Promise<void> {
  const processes = [...started];
  started.clear();
  await Promise.all(processes.map((payops) => payops.stop()));
  if (!testFailed) return;
  for (const payops of processes) {
    console.error(`--- output of payops process ${payops.name} ---\n${payops.output()}`);
  }
}

/** A port nothing listens on now: bound on loopback by the OS, then released for payops. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

// ——— the approval flow, as people drive it in Slack ———

const PAYOUT_FIELDS =
  'wallet_id=wal_acme_eth_ops amount=25.00 currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach';

export interface ApprovalMessage {
  channel: string;
  ts: string;
  /** The request's number, as its Approve button's value starts (`<number>:<fingerprint>`). */
  requestId: string;
}

/**
 * alice types `/pay payout …` in #payops; resolves with the approval message once she is
 * told it exists (the outbox confirms after the card is posted and its place stored, so a
 * click on it counts).
 */
export async function requestPayout(
  slack: SlackEmulation,
  driver: SlackDriver,
): Promise<ApprovalMessage> {
  const postsBefore = slack.callsTo('chat.postMessage').length;
  const sent = await driver.slashCommand({
    text: `payout ${PAYOUT_FIELDS}`,
    userId: 'U0ALICE',
    channelId: 'C0PAYOPS',
  });
  if (sent.status !== 200) throw new Error(`/pay payout got HTTP ${sent.status}: ${sent.body}`);
  const confirmation = await slack.nextResponse(sent.responseUrlId, { timeoutMs: 10_000 });
  const posted = slack
    .callsTo('chat.postMessage')
    .slice(postsBefore)
    .find(
      (call) =>
        call.args.channel === REHEARSAL_APPROVALS_CHANNEL && call.args.thread_ts === undefined,
    );
  const requestId = posted && approveButtonValue(posted.args.blocks)?.split(':')[0];
  if (!posted || !requestId) {
    throw new Error(
      `no approval message was posted; alice was told ${JSON.stringify(confirmation.body)}`,
    );
  }
  return { channel: String(posted.response.channel), ts: String(posted.response.ts), requestId };
}

function approveButtonValue(blocks: unknown): string | undefined {
  const elements = Array.isArray(blocks)
    ? blocks.flatMap((block: { elements?: unknown }) =>
        Array.isArray(block.elements) ? block.elements : [],
      )
    : [];
  const button = elements.find(
    (element: { action_id?: unknown }) => element.action_id === ACTION.approve,
  );
  return typeof button?.value === 'string' ? button.value : undefined;
}

/** A signed click on the message's Approve button. */
export function clickApprove(
  driver: SlackDriver,
  message: ApprovalMessage,
  userId: string,
): Promise<BlockActionResult> {
  return driver.blockAction({
    userId,
    actionId: ACTION.approve,
    message: { channel: message.channel, ts: message.ts },
  });
}

/** What the provider received for payouts: each is one upstream call to create one. */
export function createPayoutCalls(sandbox: PaymentsSandbox): RecordedRequest[] {
  return sandbox.requests.filter((request) => request.operationId === 'createPayout');
}
