import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import type { Database } from '../../src/store/database.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { cleanUpPayops, createPayoutCalls, sleep } from './bot-process.ts';
import { type Engine, freshDatabase } from './db.ts';

/** For tests that kill a payops process and start another on the same store. */

export interface TestStore {
  /** How a payops process finds it. */
  env: Record<string, string>;
  /** Reads it from the test process, once no payops process holds it. */
  read<T>(work: (db: Database) => Promise<T>): Promise<T>;
  remove(): Promise<void>;
}

/** An empty store a process can open again after a crash: a PGlite folder, or a new database. */
export async function storeOn(engine: Engine): Promise<TestStore> {
  if (engine === 'postgres') {
    const database = await freshDatabase('postgres');
    return {
      env: { DATABASE_URL: database.url as string },
      read: (work) => work(database.db),
      remove: () => database.drop(),
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'payops-crash-'));
  return {
    env: { PAYOPS_DATA_DIR: dataDir },
    async read(work) {
      const db = await openPglite(dataDir);
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    },
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A sandbox, a Slack emulation and a store for each test, torn down after it. */
export function useParts(engine: Engine) {
  const parts = {} as { sandbox: PaymentsSandbox; slack: SlackEmulation; store: TestStore };
  beforeEach(async () => {
    [parts.sandbox, parts.slack, parts.store] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation(),
      storeOn(engine),
    ]);
  });
  afterEach(async (context) => {
    await cleanUpPayops(context.task.result?.state === 'fail');
    await Promise.all([parts.sandbox?.close(), parts.slack?.close(), parts.store?.remove()]);
  });
  return parts;
}

/** Resolves once the provider has received the payout's body (the call is then in flight). */
export async function providerReceivesOnePayout(sandbox: PaymentsSandbox) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [received, ...more] = createPayoutCalls(sandbox);
    if (received) {
      expect(more).toEqual([]);
      return received;
    }
    await sleep(10);
  }
  throw new Error('the provider never received the approved payout');
}
