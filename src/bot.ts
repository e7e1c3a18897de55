import type { ApprovalWorkflow } from './app/approvals.ts';
import type { Config } from './config.ts';
import { directLink, type EngineOptions, startEngine } from './engine.ts';
import type { Logger } from './logger.ts';
import { createIngressApp, startIngress } from './slack/ingress.ts';

export { StartupRefused } from './engine.ts';

import type { RunningBot } from './engine-thread.ts';

export type { RunningBot };

/** A bot whose engine runs in this thread: its workflow is at hand (tests, the demo). */
export interface InProcessBot extends RunningBot {
  workflow: ApprovalWorkflow;
}

/**
 * payops with its engine in this thread (tests, the demo). Production runs `startThreadedBot`
 * (engine-thread.ts), which imports none of the engine into the main thread; both pass every
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
  const port = await startIngress(ingress, config, logger, {
    where: 'this thread',
    stop: () => engine.stop(),
  });
  return {
    port,
    workflow: engine.workflow,
    async stop() {
      await ingress.stop();
      await engine.stop();
    },
  };
}
