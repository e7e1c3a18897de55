import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { cleanUpPayops, payopsEnvironment } from './bot-process.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

/** What payops replicas of a describe block share: the provider, Slack and one PostgreSQL. */
export interface ReplicasSetting {
  sandbox: PaymentsSandbox;
  slack: SlackEmulation;
  database: TestDatabase;
  /** The environment of a replica on them (`startPayops`). */
  env(): Record<string, string>;
}

/**
 * A Payments sandbox, a Slack emulation and a fresh PostgreSQL database, started before the
 * block's tests and closed after them; the payops processes a test starts are stopped after it
 * (their output printed when it failed). Read the fields inside tests.
 */
export function replicasOnPostgres(): ReplicasSetting {
  const setting = {
    env: () =>
      payopsEnvironment(setting.sandbox, setting.slack, {
        DATABASE_URL: setting.database.url as string,
      }),
  } as ReplicasSetting;
  beforeAll(async () => {
    [setting.sandbox, setting.slack, setting.database] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation(),
      freshDatabase('postgres'),
    ]);
  });
  afterEach((context) => cleanUpPayops(context.task.result?.state === 'fail'));
  afterAll(async () => {
    await Promise.all([setting.sandbox?.close(), setting.slack?.close(), setting.database?.drop()]);
  });
  return setting;
}
