import { type BotOptions, type RunningBot, startBot } from '../bot.ts';
import { generateKeyEnv, loadConfig, secretsOf } from '../config.ts';
import { createLogger } from '../logger.ts';
import { observe, observed } from './observer.ts';
import {
  type PaymentsSandbox,
  type SandboxOptions,
  sandboxPaymentsEnv,
  startPaymentsSandbox,
} from './sandbox/payments-api.ts';
import {
  type SlackDriver,
  type SlackEmulation,
  type SlackEmulationOptions,
  startSlackEmulation,
} from './sandbox/slack.ts';

/**
 * The whole of payops on one machine, over real HTTP on loopback: the Payments sandbox, the
 * Slack emulation and the real bot between them. Used by the end-to-end tests, the demo and
 * the benchmark, so all three exercise exactly what production runs.
 */
export interface Rehearsal {
  sandbox: PaymentsSandbox;
  slack: SlackEmulation;
  bot: RunningBot;
  /** The bot's Slack endpoint, `http://127.0.0.1:PORT/slack/events`. */
  botUrl: string;
  /** Sends correctly signed Slack requests to the bot. */
  driver: SlackDriver;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A rehearsal whose bot can be restarted: what `startRehearsal` gives. */
export interface RestartableRehearsal extends Rehearsal {
  /**
   * Stops the bot and starts another on the same sandbox, emulation and store, configured as
   * before with `env` on top (a restart, a deploy): `bot`, `botUrl`, `driver` and `env` are then
   * the new bot's. Only a store that outlives a process (PAYOPS_DATA_DIR a folder, or
   * DATABASE_URL) keeps the requests across it.
   */
  restart(env?: Record<string, string>): Promise<void>;
}

export interface RehearsalOptions {
  /** Environment on top of the rehearsal's own (keys, URLs, readers…). */
  env?: Record<string, string>;
  sandbox?: SandboxOptions;
  slack?: SlackEmulationOptions;
  /** Where the bot's log lines go (stderr by default); redacted exactly as in production. */
  logDestination?: { write(line: string): unknown };
  /** What the bot is given besides its environment (its workflow clock, its sweep's pace). */
  bot?: BotOptions;
}

/** Readers by default: the emulation's alice, bob and carol through their user group, and dave. */
export const REHEARSAL_READERS = 'U0DAVE,S0APPROVERS';
/** Who may request writes: alice and dave. Who may approve: the S0APPROVERS group (alice, bob, carol). */
export const REHEARSAL_REQUESTERS = 'U0ALICE,U0DAVE';
export const REHEARSAL_APPROVERS = 'S0APPROVERS';
export const REHEARSAL_APPROVALS_CHANNEL = 'C0APPROVALS';

/**
 * Made once per process (each demo run has its own), and shared by every bot started from it:
 * replicas and restarts of one store must read what the others wrote.
 */
const REHEARSAL_KEYS = generateKeyEnv();

/**
 * The environment of a bot wired to this sandbox and emulation, on loopback. A bot started in
 * another process (the benchmark, multi-process tests) gets the same, plus its own port.
 */
export function rehearsalEnv(
  sandbox: Pick<PaymentsSandbox, 'url'>,
  slack: Pick<SlackEmulation, 'config' | 'apiUrl' | 'rateLimitScale'>,
): Record<string, string> {
  return {
    ...sandboxPaymentsEnv(sandbox),
    SLACK_BOT_TOKEN: slack.config.botToken,
    SLACK_SIGNING_SECRET: slack.config.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    // payops keeps to the emulation's limits: scaled alike, or as fast as it may when they are off
    // (a variable only rehearsals set; at Slack's own limits it is left out, as an operator does).
    ...(slack.rateLimitScale === 1
      ? {}
      : { PAYOPS_SLACK_RATE_SCALE: String(slack.rateLimitScale ?? 1_000) }),
    PAYOPS_READERS: REHEARSAL_READERS,
    PAYOPS_REQUESTERS: REHEARSAL_REQUESTERS,
    PAYOPS_APPROVERS: REHEARSAL_APPROVERS,
    PAYOPS_APPROVALS_CHANNEL: REHEARSAL_APPROVALS_CHANNEL,
    PAYOPS_DATA_DIR: 'memory://',
    PAYOPS_ACCESS_ADMIN: '#payops-admins',
    // The tests' and the benchmark's scripted writes state no purpose unless they are about it;
    // the demo asks for one, as a deployment does by default.
    PAYOPS_REQUIRE_PURPOSE: 'none',
    ...REHEARSAL_KEYS,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
}

export async function startRehearsal(
  options: RehearsalOptions = {},
): Promise<RestartableRehearsal> {
  const sandbox = await startPaymentsSandbox(options.sandbox);
  const slack = await startSlackEmulation(options.slack);
  // Observed (by the tests' leak scan), every bot logs all it can, to the observer alone unless
  // asked for.
  const observing = observed();
  const env = {
    ...rehearsalEnv(sandbox, slack),
    ...(observing ? { LOG_LEVEL: 'trace' } : {}),
    ...options.env,
  };
  const destination = options.logDestination ?? (observing ? undefined : process.stderr);
  const start = (botEnv: Record<string, string>) => {
    const config = loadConfig(botEnv);
    const secrets = secretsOf(config);
    observe('secrets', secrets);
    const logger = createLogger({
      level: config.logging.level,
      secrets,
      destination: {
        write(line: string) {
          observe('logs', line.trimEnd());
          destination?.write(line);
        },
      },
    });
    return startBot(config, logger, options.bot);
  };
  let bot: RunningBot;
  try {
    bot = await start(env);
  } catch (error) {
    await Promise.all([sandbox.close(), slack.close()]);
    throw error;
  }
  const botUrl = (running: RunningBot) => `http://127.0.0.1:${running.port}/slack/events`;
  const rehearsal: RestartableRehearsal = {
    sandbox,
    slack,
    bot,
    botUrl: botUrl(bot),
    driver: slack.driver(botUrl(bot)),
    env,
    async restart(more = {}) {
      await rehearsal.bot.stop();
      const restartedEnv = { ...rehearsal.env, ...more };
      const restarted = await start(restartedEnv);
      Object.assign(rehearsal, {
        bot: restarted,
        botUrl: botUrl(restarted),
        driver: slack.driver(botUrl(restarted)),
        env: restartedEnv,
      });
    },
    async close() {
      await rehearsal.bot.stop();
      await Promise.all([sandbox.close(), slack.close()]);
    },
  };
  return rehearsal;
}
