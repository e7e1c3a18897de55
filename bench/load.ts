import type { Worker } from 'node:worker_threads';
import { Client } from 'undici';
import { startModuleWorker } from '../src/lib/run-module.ts';

/**
 * The load generator: pre-signed Slack requests over keep-alive HTTP/1.1 connections (undici),
 * each answer timed with `performance.now()` (sub-millisecond; autocannon's histogram rounds to
 * whole milliseconds). Two shapes:
 * - `rate`: a fixed offered rate, requests dealt round-robin over exactly N connections and each
 *   timed from the moment it is issued, so one queued behind a slow answer on its connection
 *   counts its wait (no coordinated omission);
 * - `saturate`: N connections, each sending its next request as soon as the previous one is
 *   answered; the rate achieved is the result.
 * Runs in a worker thread (`LoadWorker`), so the sandbox and the emulation, which share the
 * bench's main thread, never delay the reading of an answer.
 */

export interface SignedRequest {
  body: string;
  timestampSec: number;
  signature: string;
}

export type LoadShape = { kind: 'rate'; perSecond: number } | { kind: 'saturate' };

export interface LoadSpec {
  /** `http://127.0.0.1:PORT/slack/events` */
  url: string;
  connections: number;
  shape: LoadShape;
  durationMs: number;
  /** Sent in order, each once; a saturation run that runs out of them just ends early. */
  requests: SignedRequest[];
}

export interface LoadResult {
  /** One per 200 answer, in milliseconds. */
  latenciesMs: Float64Array;
  sent: number;
  /** Non-200 answers and transport errors. */
  failed: number;
  /**
   * Indexes of requests answered inside their ack (payops shedding a command: "overloaded"),
   * which will have no answer on their response_url.
   */
  answeredInAck: number[];
  /** From the first request issued to the last answer read. */
  elapsedMs: number;
  /** `performance.timeOrigin + performance.now()` at the first request: comparable across threads. */
  startedAtEpochMs: number;
}

/** Bolt answers within 3 s or not at all; anything slower is a failure, never a hang. */
const REQUEST_TIMEOUT_MS = 10_000;

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { origin, pathname } = new URL(spec.url);
  const clients = Array.from(
    { length: spec.connections },
    () =>
      new Client(origin, {
        keepAliveTimeout: 60_000,
        headersTimeout: REQUEST_TIMEOUT_MS,
        bodyTimeout: REQUEST_TIMEOUT_MS,
      }),
  );
  try {
    // Opens every connection before timing starts (`ssl_check` is answered by Bolt itself).
    await Promise.all(clients.map((client) => probe(client, pathname)));
    const recorder = new Recorder(spec.requests.length);
    const started = performance.now();
    const startedAtEpochMs = performance.timeOrigin + started;
    if (spec.shape.kind === 'rate') {
      await openLoop(clients, pathname, spec, spec.shape.perSecond, recorder);
    } else {
      await closedLoop(clients, pathname, spec, recorder);
    }
    return {
      latenciesMs: recorder.latencies(),
      sent: recorder.sent,
      failed: recorder.failed,
      answeredInAck: recorder.answeredInAck,
      elapsedMs: performance.now() - started,
      startedAtEpochMs,
    };
  } finally {
    await Promise.all(clients.map((client) => client.destroy()));
  }
}

async function openLoop(
  clients: Client[],
  path: string,
  spec: LoadSpec,
  perSecond: number,
  recorder: Recorder,
): Promise<void> {
  const intervalMs = 1000 / perSecond;
  const count = Math.min(Math.round(spec.durationMs / intervalMs), spec.requests.length);
  const start = performance.now();
  const answers: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const early = start + index * intervalMs - performance.now();
    // Timers resolve to about a millisecond: sleep when that early, otherwise send now.
    if (early >= 1) await sleep(early);
    const client = clients[index % clients.length] as Client;
    const request = spec.requests[index] as SignedRequest;
    answers.push(recorder.time(index, sendSigned(client, path, request)));
  }
  await Promise.all(answers);
}

async function closedLoop(
  clients: Client[],
  path: string,
  spec: LoadSpec,
  recorder: Recorder,
): Promise<void> {
  const deadline = performance.now() + spec.durationMs;
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline && next < spec.requests.length) {
        const index = next++;
        await recorder.time(index, sendSigned(client, path, spec.requests[index] as SignedRequest));
      }
    }),
  );
}

export interface Answer {
  status: number;
  ms: number;
  /** The ack had a body: for a command, its answer (payops acks work it does later empty). */
  bodyInAck: boolean;
}

/** One signed POST, timed from issue to the last byte of the answer. */
export async function sendSigned(
  client: Client,
  path: string,
  request: SignedRequest,
): Promise<Answer> {
  const issued = performance.now();
  const response = await client.request({
    path,
    method: 'POST',
    headers: {
      // Exactly this: Bolt refuses a `;charset=…` suffix with 400 (slack-platform-notes §1).
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(request.timestampSec),
      'x-slack-signature': request.signature,
    },
    body: request.body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, ms: performance.now() - issued, bodyInAck: text !== '' };
}

async function probe(client: Client, path: string): Promise<void> {
  const response = await client.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'ssl_check=1',
  });
  await response.body.text();
}

class Recorder {
  readonly #latencies: Float64Array;
  #ok = 0;
  sent = 0;
  failed = 0;
  readonly answeredInAck: number[] = [];

  constructor(capacity: number) {
    this.#latencies = new Float64Array(capacity);
  }

  async time(index: number, answer: Promise<Answer>): Promise<void> {
    this.sent++;
    try {
      const { status, ms, bodyInAck } = await answer;
      if (status === 200) this.#latencies[this.#ok++] = ms;
      else this.failed++;
      if (bodyInAck) this.answeredInAck.push(index);
    } catch {
      this.failed++;
    }
  }

  latencies(): Float64Array {
    return this.#latencies.slice(0, this.#ok);
  }
}

export interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** Exact nearest-rank percentiles over every raw sample (no histogram buckets). */
export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const at = (quantile: number) =>
    sorted.length === 0 ? Number.NaN : (sorted[Math.ceil(quantile * sorted.length) - 1] as number);
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** `runLoad` in a worker thread, one run at a time. */
export class LoadWorker {
  readonly #worker: Worker = startModuleWorker(import.meta.url, 'load-worker');
  #running: Promise<unknown> = Promise.resolve();

  run(spec: LoadSpec): Promise<LoadResult> {
    const result = this.#running.then(
      () =>
        new Promise<LoadResult>((resolve, reject) => {
          const onError = (error: Error) => reject(error);
          this.#worker.once('error', onError);
          this.#worker.once('message', (message: LoadResult | { error: string }) => {
            this.#worker.off('error', onError);
            if ('error' in message) reject(new Error(`load worker: ${message.error}`));
            else resolve(message);
          });
          this.#worker.postMessage(spec);
        }),
    );
    this.#running = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
