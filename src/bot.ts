import type { Server } from 'node:http';
import type { App } from '@slack/bolt';
import type { ApprovalWorkflow } from './app/approvals.ts';
import type { Config } from './config.ts';
import { directLink, type EngineOptions, startEngine } from './engine.ts';
import { startEngineThread } from './engine-thread.ts';
import type { Logger } from './logger.ts';
import { createIngressApp } from './slack/ingress.ts';

export { StartupRefused } from './engine.ts';

export interface RunningBot {
  /** The HTTP port Slack requests and health checks reach (also in Socket Mode). */
  port: number | undefined;
  stop(): Promise<void>;
}

/** A bot whose engine runs in this thread: its workflow is at hand (tests, the demo). */
export interface InProcessBot extends RunningBot {
  workflow: ApprovalWorkflow;
}

/**
 * payops with its engine in this thread. Production runs `startThreadedBot`; both pass every
 * Slack request through the same ingress and the same engine, only the hand-off differs.
 */
export async function startBot(
  config: Config,
  logger: Logger,
  options: EngineOptions = {},
): Promise<InProcessBot> {
  const engine = await startEngine(config, logger, options);
  const ingress = createIngressApp({
    slack: config.slack,
    logger,
    identity: engine.identity,
    engine: directLink(engine),
  });
  const port = await listen(ingress, config, logger, 'this thread');
  return {
    port,
    workflow: engine.workflow,
    async stop() {
      await ingress.stop();
      await engine.stop();
    },
  };
}

/**
 * `npm start`: the ingress (Bolt, acknowledgements, health checks) on the main thread, the
 * engine in a worker thread, so acknowledgements never wait behind work.
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
  const port = await listen(ingress, config, logger, 'worker thread');
  return {
    port,
    async stop() {
      await ingress.stop();
      await engine.stop();
    },
  };
}

async function listen(
  ingress: App,
  config: Config,
  logger: Logger,
  engine: string,
): Promise<number | undefined> {
  const started = (await ingress.start({ port: config.slack.port, host: config.slack.host })) as
    | Server
    | undefined;
  const address = started?.address?.();
  const port = typeof address === 'object' && address ? address.port : config.slack.port;
  logger.info(
    {
      port,
      mode: config.slack.appToken ? 'socket' : 'http',
      command: config.slack.command,
      store: config.store.databaseUrl ? 'postgres' : 'pglite',
      engine,
    },
    'payops is listening',
  );
  return port;
}
