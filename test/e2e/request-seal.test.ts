import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBot, startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { type Rehearsal, rehearsalEnv } from '../../src/rehearsal/rehearsal.ts';
import { startPaymentsSandbox } from '../../src/rehearsal/sandbox/payments-api.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-data.ts';
import { startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { type Engine, engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { requestPayout } from '../helpers/slack.ts';

/**
 * Someone who can write payops's database, and nothing else, cannot make an Approve click send
 * another payment than the one its card showed: the request is sealed when it is stored, with a
 * key the database does not hold, and a request that no longer matches its seal is stopped.
 */

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const STOPPED = 'The stored request no longer matches what was approved';
const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * A bot on `engine` and a way to write its database as a database writer would: on PostgreSQL
 * while it runs; the embedded store admits one process, so there the bot is stopped for the write
 * and started again on the same folder (its approval messages and their buttons stay).
 */
async function payopsOn(engine: Engine) {
  const [sandbox, slack] = await Promise.all([startPaymentsSandbox(), startSlackEmulation()]);
  const policyFile = join(tmpdir(), `payops-seal-policy-${process.pid}-${engine}.yml`);
  writeFileSync(
    policyFile,
    'rules:\n  - operations: [payout]\n    currency: USDC\n    min_amount: "10000"\n    approvals: 2\n',
  );
  const database: TestDatabase | undefined =
    engine === 'postgres' ? await freshDatabase('postgres') : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'payops-seal-'));
  const env = {
    ...rehearsalEnv(sandbox, slack),
    PAYOPS_POLICY_FILE: policyFile,
    ...(database ? { DATABASE_URL: database.url as string } : { PAYOPS_DATA_DIR: dataDir }),
  };
  const start = async (): Promise<Rehearsal> => {
    const bot: RunningBot = await startBot(loadConfig(env), logger);
    const botUrl = `http://127.0.0.1:${bot.port}/slack/events`;
    return {
      sandbox,
      slack,
      bot,
      botUrl,
      driver: slack.driver(botUrl),
      env,
      close: () => bot.stop(),
    };
  };
  let r = await start();
  return {
    get r() {
      return r;
    },
    async write(sql: string, params: unknown[]): Promise<void> {
      if (database) {
        await database.db.query(sql, params);
        return;
      }
      await r.close();
      const db = await openPglite(dataDir);
      try {
        await db.query(sql, params);
      } finally {
        await db.close();
      }
      r = await start();
    },
    async close() {
      await r.close();
      await Promise.all([sandbox.close(), slack.close(), database?.drop()]);
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(policyFile, { force: true });
    },
  };
}

describe.each(engines())('a request changed in the database (%s)', (engine) => {
  let payops: Awaited<ReturnType<typeof payopsOn>>;
  let accounts = 0;

  beforeAll(async () => {
    payops = await payopsOn(engine);
  }, 60_000);
  afterAll(() => payops?.close());

  /** A payout as alice to a payee of its own, so no policy window counts one with another. */
  function requested(fields: Record<string, string>) {
    accounts++;
    return requestPayout(payops.r, {
      ...PAYOUT,
      beneficiary_account: `00055500${String(accounts).padStart(4, '0')}`,
      ...fields,
    });
  }

  function payoutsSent() {
    return payops.r.sandbox.requests.filter((entry) => entry.operationId === 'createPayout');
  }

  /** Bob's click on the approval message `ts`, with the value its Approve button carries. */
  function bobApproves(ts: string, value?: string) {
    return payops.r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      ...(value === undefined ? {} : { value }),
      message: { channel: APPROVALS, ts },
    });
  }

  /** What the approval message `ts` and its thread say once a redraw and a reply show `text`. */
  async function toldOnCardAndThread(ts: string, text: string) {
    const { slack } = payops.r;
    const card = await slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === ts && JSON.stringify(call.args).includes(text),
      { timeoutMs: 10_000 },
    );
    const reply = await slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === ts && JSON.stringify(call.args).includes(text),
      { timeoutMs: 10_000 },
    );
    return { card: JSON.stringify(card.args), reply: JSON.stringify(reply.args) };
  }

  it("another request's payload copied into a request: its Approve sends nothing, and its card and thread say payops stopped it", {
    timeout: 60_000,
  }, async () => {
    const jane = await requested({ amount: '11.11', beneficiary_name: 'Jane Roe' });
    const mallory = await requested({ amount: '99.99', beneficiary_name: 'Mallory Moe' });
    await payops.write(
      `update payment_requests a
          set operation_id = b.operation_id, path_params = b.path_params, body = b.body,
              fingerprint = b.fingerprint, hold_key = b.hold_key
         from payment_requests b
        where a.id = $1 and b.id = $2`,
      [jane.id, mallory.id],
    );
    const before = payoutsSent().length;

    const click = await bobApproves(jane.ts);
    expect(click.status).toBe(200);
    const told = await toldOnCardAndThread(jane.ts, STOPPED);
    expect(told.card).toContain('nothing was sent');
    expect(told.reply).toContain('<@U0ALICE>');

    const stored = await payops.r.bot.store.get(jane.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.outcome?.message).toContain(STOPPED);
    expect((await payops.r.bot.store.history(jane.id)).at(-1)).toMatchObject({
      event: 'failed',
      detail: { message: expect.stringContaining(STOPPED) },
    });
    expect(payoutsSent().length).toBe(before);
    // The request copied from is untouched.
    expect((await payops.r.bot.store.get(mallory.id))?.status).toBe('pending');
  });

  it('a count of approvals lowered from 2 to 1: the first approval sends nothing', {
    timeout: 60_000,
  }, async () => {
    const big = await requested({
      wallet_id: SANDBOX_IDS.wallet.solanaTreasury,
      amount: '10000.00',
      beneficiary_name: 'Big Payee',
    });
    expect((await payops.r.bot.store.get(big.id))?.requiredApprovals).toBe(2);
    await payops.write('update payment_requests set required_approvals = 1 where id = $1', [
      big.id,
    ]);
    const before = payoutsSent().length;

    await bobApproves(big.ts);
    await toldOnCardAndThread(big.ts, STOPPED);
    expect((await payops.r.bot.store.get(big.id))?.status).toBe('failed');
    expect(payoutsSent().length).toBe(before);
  });

  it('an Approve whose button carries another fingerprint than the stored one counts for nothing', {
    timeout: 60_000,
  }, async () => {
    const shown = await requested({ amount: '13.13', beneficiary_name: 'Shown Payee' });
    const before = payoutsSent().length;

    for (const value of [`${shown.id}:0123456789abcdef`, String(shown.id)]) {
      const click = await bobApproves(shown.ts, value);
      const answer = await payops.r.slack.nextResponse(click.responseUrlId as string);
      expect(String((answer.body as { text?: unknown }).text)).toContain(
        `Request #${shown.id} is not what this approval message showed`,
      );
    }
    const stored = await payops.r.bot.store.get(shown.id);
    expect(stored?.status).toBe('pending');
    expect(stored?.approvals).toEqual([]);
    expect(payoutsSent().length).toBe(before);

    // The button as drawn still approves it.
    await bobApproves(shown.ts);
    await expect.poll(() => payoutsSent().length, { timeout: 10_000 }).toBe(before + 1);
  });
});
