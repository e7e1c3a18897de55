import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBot, startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { rehearsalEnv } from '../../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { ANNOUNCEMENT_EVENT } from '../../src/slack/outbox.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

/** Replicas starting together on one PostgreSQL under a new policy record and announce it once. */

const onPostgres = engines().includes('postgres');
if (!onPostgres)
  console.warn(
    'policy-replicas.test.ts is skipped: replicas sharing a database need PostgreSQL (TEST_DATABASE_URL)',
  );

describe.skipIf(!onPostgres)('two replicas starting at once under a new policy', () => {
  let sandbox: PaymentsSandbox;
  let slack: SlackEmulation;
  let database: TestDatabase;
  const folder = mkdtempSync(join(tmpdir(), 'payops-policy-replicas-'));
  const logger = createLogger({ level: 'silent', secrets: [] });

  beforeAll(async () => {
    [sandbox, slack, database] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation({ rateLimits: 'off' }),
      freshDatabase('postgres'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sandbox?.close(), slack?.close(), database?.drop()]);
    rmSync(folder, { recursive: true, force: true });
  });

  let files = 0;
  function bot(policy: string): Promise<RunningBot> {
    const path = join(folder, `policy-${++files}.yaml`);
    writeFileSync(path, policy);
    const env = {
      ...rehearsalEnv(sandbox, slack),
      DATABASE_URL: database.url as string,
      PAYOPS_POLICY_FILE: path,
    };
    return startBot(loadConfig(env), logger);
  }

  it('one audit row and one announcement, whichever replica wins', {
    timeout: 60_000,
  }, async () => {
    await (await bot('default_approvals: 1\n')).stop();
    const replicas = await Promise.all([1, 2].map(() => bot('default_approvals: 2\n')));
    try {
      await slack.waitForCall(
        'chat.postMessage',
        (call) =>
          (call.args.metadata as { event_type?: string } | undefined)?.event_type ===
          ANNOUNCEMENT_EVENT,
      );
      // Time for a second announcement, were there one, to be posted by either dispatcher.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const announced = slack
        .callsTo('chat.postMessage')
        .filter(
          (call) =>
            (call.args.metadata as { event_type?: string } | undefined)?.event_type ===
            ANNOUNCEMENT_EVENT,
        );
      expect(announced).toHaveLength(1);
      expect(JSON.stringify(announced[0]?.args.blocks)).toContain(
        'Approvals every write needs: 1 approval → 2 approvals.',
      );
      const rows = await database.db.query<{ detail: { version: string } }>(
        "select detail from audit_log where event = 'policy_loaded' order by id",
      );
      expect(rows).toHaveLength(2);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  });
});
