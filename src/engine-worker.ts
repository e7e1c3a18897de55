import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { loadConfig, secretsOf } from './config.ts';
import { type RunningEngine, startEngine } from './engine.ts';
import type { EngineWorkerData, FromEngine, ToEngine } from './engine-thread.ts';
import { createLogger, type Logger } from './logger.ts';

/** The engine thread's entry (see engine-thread.ts): the engine, driven by the main thread. */

const port = parentPort;
if (!port) throw new Error('engine-worker.ts runs only as a worker thread');
const send = (message: FromEngine) => port.postMessage(message);

const { env, backlog } = workerData as EngineWorkerData;
const config = loadConfig(env);
// Straight to stdout's file descriptor: a worker's process.stdout would pass every line
// through the main thread.
const logger = createLogger({
  level: config.logging.level,
  secrets: secretsOf(config),
  destination: pino.destination({ dest: 1, sync: true }),
});

startEngine(config, logger).then(
  (engine) => {
    port.on('message', (message: ToEngine) => handle(engine, message, logger));
    send({ kind: 'started', identity: engine.identity });
  },
  (error: unknown) => {
    // The main thread ends this thread once it has read why.
    const failure = error instanceof Error ? error : new Error(String(error));
    send({ kind: 'refused', message: failure.message, name: failure.name });
  },
);

function handle(engine: RunningEngine, message: ToEngine, logger: Logger): void {
  switch (message.kind) {
    case 'event': {
      const answer = engine.slack.process(message.event, () => Atomics.sub(backlog, 0, 1));
      const { answerId } = message;
      if (answerId !== undefined) {
        void answer.then((value) => send({ kind: 'answer', answerId, value }));
      }
      return;
    }
    case 'readiness': {
      const { answerId } = message;
      engine.readiness().then(
        (value) => send({ kind: 'answer', answerId, value }),
        () => send({ kind: 'answer', answerId, value: { ready: false, checks: {} } }),
      );
      return;
    }
    case 'stop':
      engine
        .stop()
        .catch((error) => logger.error({ err: error }, 'error while stopping the engine'))
        .finally(() => send({ kind: 'stopped' }));
      return;
  }
}
