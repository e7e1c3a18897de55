import { type RunningBot, startBot } from './bot.ts';
import { type Config, ConfigError, loadConfig, secretsOf } from './config.ts';
import { createLogger } from './logger.ts';

/** `npm start`: load the configuration, start the bot, stop cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`payops: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  const logger = createLogger({ level: config.logging.level, secrets: secretsOf(config) });
  let bot: RunningBot;
  try {
    bot = await startBot(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'payops did not start');
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
    return;
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
}

await main();
