import { type RunningBot, startBot } from '../bot.ts';
import { type Config, ConfigError, loadConfig, secretsOf } from '../config.ts';
import { ApproverShortageError } from '../domain/policy.ts';
import { createLogger } from '../logger.ts';

export const usage = `Usage: payops start

Runs the bot, configured by its environment (see .env.example). SIGTERM or SIGINT stops it
cleanly. Exit codes: 1 it did not start or stopping failed, 2 the configuration (or the policy
file) is invalid.`;

export const flags: readonly string[] = [];

/** Starts the bot and returns once it serves; it stops cleanly on SIGTERM/SIGINT. */
export async function run(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`payops: ${error.message}`);
    return 2;
  }
  const logger = createLogger({ level: config.logging.level, secrets: secretsOf(config) });
  let bot: RunningBot;
  try {
    bot = await startBot(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'payops did not start');
    console.error(error instanceof Error ? error.message : String(error));
    // A policy that needs more approvers than there are is a configuration error too.
    return error instanceof ApproverShortageError ? 2 : 1;
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    bot.stop().then(
      () => logger.info('stopped'),
      (error) => {
        logger.error({ err: error }, 'error while stopping');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return 0;
}
