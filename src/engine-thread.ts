import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Config } from './config.ts';
import { firstMessage, startModuleWorker } from './lib/run-module.ts';
import type { Logger } from './logger.ts';
import type { BotIdentity } from './slack/directory.ts';
import {
  createIngressApp,
  type EngineLink,
  type ForwardedEvent,
  type Readiness,
  startIngress,
} from './slack/ingress.ts';

/**
 * The engine in a worker thread of its own, so its work — SQL (PGlite's runs on the thread that
 * calls it), provider calls, rendering, Slack answers — never delays an acknowledgement on the
 * main thread. One engine thread per process: the in-process guarantees (one PGlite per folder,
 * approval messages redrawn in order) hold as they do in a single thread.
 */

export interface RunningBot {
  /** The HTTP port Slack requests and health checks reach (also in Socket Mode). */
  port: number | undefined;
  stop(): Promise<void>;
}

/**
 * `npm start`: the ingress (Bolt, acknowledgements, health checks) on the main thread, the
 * engine in a worker thread. Nothing of the engine — store drivers, Payments client, listeners
 * — is loaded on the main thread.
 */
export async function startThreadedBot(
  config: Config,
  env: Record<string, string | undefined>,
  logger: Logger,
): Promise<RunningBot> {
  const engine = await startEngineThread(env, logger);
  const ingress = createIngressApp({
    slack: config.slack,
    logger,
    identity: engine.identity,
    engine: engine.link,
  });
  const port = await startIngress(ingress, config, logger, {
    where: 'worker thread',
    stop: () => engine.stop(),
  });
  return {
    port,
    async stop() {
      await ingress.stop();
      await engine.stop();
    },
  };
}

/** What the engine thread starts with. */
export interface EngineWorkerData {
  env: Record<string, string | undefined>;
  /** One Int32: requests handed to the engine and not yet finished. */
  backlog: Int32Array;
}

/** Main thread → engine thread. */
export type ToEngine =
  | { kind: 'event'; event: ForwardedEvent; answerId: number | undefined }
  | { kind: 'readiness'; answerId: number }
  | { kind: 'stop' };

/** Engine thread → main thread. */
export type FromEngine =
  | { kind: 'started'; identity: BotIdentity }
  | { kind: 'refused'; message: string; name: string }
  | { kind: 'answer'; answerId: number; value: unknown }
  | { kind: 'stopped' };

export interface EngineThread {
  identity: BotIdentity;
  link: EngineLink;
  /** Asks the engine to finish what it is doing and close; resolves once the thread is gone. */
  stop(): Promise<void>;
}

/**
 * Starts the engine thread with this environment (it reads its own configuration from it) and
 * resolves once its first checks passed, its store is open and its bot identity is known. The
 * process exits if the thread dies later: acknowledging requests nobody works on would lose them.
 */
export async function startEngineThread(
  env: Record<string, string | undefined>,
  logger: Logger,
): Promise<EngineThread> {
  // Counted up here at each hand-off and down by the engine when it is done with one: the
  // backlog includes requests still waiting in the thread's message queue.
  const backlog = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const worker = startModuleWorker(import.meta.url, 'engine-worker', {
    workerData: { env, backlog } satisfies EngineWorkerData,
  });
  const pending = new Map<number, (value: unknown) => void>();
  let nextAnswerId = 1;
  let stopping = false;
  const ask = (message: (answerId: number) => ToEngine) =>
    new Promise<unknown>((resolve) => {
      const answerId = nextAnswerId++;
      pending.set(answerId, resolve);
      worker.postMessage(message(answerId));
    });

  const identity = await started(worker);
  worker.on('message', (message: FromEngine) => {
    if (message.kind !== 'answer') return;
    pending.get(message.answerId)?.(message.value);
    pending.delete(message.answerId);
  });
  worker.on('error', (error) => logger.fatal({ err: error }, 'the engine thread failed'));
  worker.once('exit', (code) => {
    if (stopping) return;
    logger.fatal({ code }, 'the engine thread stopped unexpectedly; payops exits');
    process.exit(1);
  });

  return {
    identity,
    link: {
      forward(event) {
        Atomics.add(backlog, 0, 1);
        worker.postMessage({ kind: 'event', event, answerId: undefined } satisfies ToEngine);
      },
      answerForAck: (event) => {
        Atomics.add(backlog, 0, 1);
        return ask((answerId) => ({ kind: 'event', event, answerId }));
      },
      readiness: () => ask((answerId) => ({ kind: 'readiness', answerId })) as Promise<Readiness>,
      backlog: () => Atomics.load(backlog, 0),
    },
    async stop() {
      stopping = true;
      const stopped = new Promise<void>((resolve) => {
        worker.on('message', (message: FromEngine) => {
          if (message.kind === 'stopped') resolve();
        });
      });
      worker.postMessage({ kind: 'stop' } satisfies ToEngine);
      await Promise.race([stopped, once(worker, 'exit')]);
      // Whatever handle a library left open, the thread ends here.
      await worker.terminate();
    },
  };
}

/** The engine's first message: started, or refused (its error thrown here, the thread ended). */
async function started(worker: Worker): Promise<BotIdentity> {
  const message = (await firstMessage(worker)) as FromEngine;
  if (message.kind === 'started') return message.identity;
  await worker.terminate();
  if (message.kind === 'refused') {
    const error = new Error(message.message);
    error.name = message.name;
    throw error;
  }
  throw new Error(`the engine thread said ${message.kind} before it started`);
}
