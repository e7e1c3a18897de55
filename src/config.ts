import { behaviour } from './config/behaviour.ts';
import { logLevel } from './config/fields.ts';
import { keys } from './config/keys.ts';
import { people } from './config/people.ts';
import { provider } from './config/provider.ts';
import { type Env, fieldsOf, type Parts, readSections, section } from './config/read.ts';
import { slack } from './config/slack.ts';
import { parseDatabaseUrl, store } from './config/store.ts';

/**
 * Configuration comes from the environment, one section per concern (src/config/), and each
 * command reads the sections it needs: every problem of every section is listed at once.
 */

export { generateKeyEnv } from './config/keys.ts';
export { loadPolicy } from './config/people.ts';
export type { PaymentsToolConfig } from './config/provider.ts';
export { ConfigError } from './config/read.ts';

const BOT = [provider, slack, people, store, keys, behaviour];

export type Config = Parts<typeof provider> &
  Parts<typeof slack> &
  Parts<typeof people> &
  Parts<typeof store> &
  Parts<typeof keys> &
  Parts<typeof behaviour>;
export type SlackConfig = Config['slack'];

/** The bot's whole configuration. */
export function loadConfig(env: Env = process.env): Config {
  return readSections(env, BOT);
}

/** What `doctor` and the sandbox tools need: the Payments API side only. */
export function loadPaymentsToolConfig(env: Env = process.env): Parts<typeof provider> {
  return readSections(env, [provider]);
}

/** The store tools say only what matters to an operator unless asked. */
const storeTool = section({ logLevel: logLevel('warn') });

/** The store and its keys, for the commands that work on the store alone (`payops audit …`). */
export type StoreToolConfig = Parts<typeof store> & Parts<typeof keys> & Parts<typeof storeTool>;

export function loadStoreToolConfig(env: Env = process.env): StoreToolConfig {
  return readSections(env, [store, keys, storeTool]);
}

/** Every variable payops reads: whether it is a secret, and whether only rehearsals set it. */
export function configurationVariables() {
  return fieldsOf([...BOT, storeTool]).map(({ variable }) => variable);
}

/** Every secret value in the configuration, as it may be written, for the logger to scrub. */
export function secretsOf(config: Config | Parts<typeof provider> | StoreToolConfig): string[] {
  const secrets: string[] = [];
  if ('payments' in config) secrets.push(config.payments.apiKey);
  if ('slack' in config) {
    secrets.push(config.slack.botToken, config.slack.signingSecret);
    if (config.slack.appToken) secrets.push(config.slack.appToken);
  }
  if ('store' in config) {
    if (config.store.databaseUrl) {
      const parsed = parseDatabaseUrl(config.store.databaseUrl);
      if ('passwords' in parsed) secrets.push(...parsed.passwords);
    }
    secrets.push(config.signingKey.toString('utf8'));
    for (const { key } of [config.encryption.current, ...config.encryption.old]) {
      secrets.push(key.toString('base64'));
    }
  }
  return secrets;
}
