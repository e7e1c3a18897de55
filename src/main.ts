import { run } from './cli/start.ts';

/** `npm start` (`node dist/main.js`): the bot, exactly as `payops start` runs it. */
process.exitCode = await run();
