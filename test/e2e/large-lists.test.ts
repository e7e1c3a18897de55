import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import type { Reconciliation } from '../../src/domain/approval.ts';
import { createLogger } from '../../src/logger.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { reconciliationDetailText } from '../../src/slack/text/list-findings.ts';
import { cleanUpPayops, payopsEnvironment, sleep, startPayops } from '../helpers/bot-process.ts';
import { payoutCommand } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

/**
 * A provider whose payouts list is far larger than payops reads: each sweep reads the list once
 * for all its unknown outcomes, stops reading a reply past the byte cap and a list past the
 * record cap, reports either as a check failed (never "not found"), and the bot stays up and
 * starts while the sweep cannot finish.
 */

/** The workflow's clock, behind the database's: each check is due again at the next sweep. */
const BEHIND_MS = 5 * 60_000;
const behind = () => new Date(Date.now() - BEHIND_MS);
const UNKNOWN_OUTCOMES = 4;
const dataDir = mkdtempSync(join(tmpdir(), 'payops-large-lists-'));
/** The unknown outcomes the first test leaves in the store, for the start-ups after it. */
const ids: number[] = [];

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** What the card says a check found. */
const said = (reconciliation: Reconciliation | undefined) =>
  reconciliation && reconciliationDetailText(reconciliation);

/** A payout approved by bob whose write the provider answers 502 (not executed): unknown. */
async function unknownPayout(r: Rehearsal, cents: number): Promise<number> {
  const answer = await ask(
    r,
    payoutCommand({
      wallet_id: 'wal_acme_sol_treasury',
      amount: (cents / 100).toFixed(2),
      currency: 'USDC',
      beneficiary_name: 'Jane Roe',
      beneficiary_account: `0001234567${String(cents % 100).padStart(2, '0')}`,
      beneficiary_routing: '021000021',
      destination_type: 'ach',
    }),
    { timeoutMs: 20_000 },
  );
  const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
  const ts = await approvalMessageTs(r, id);
  r.sandbox.addFault({ kind: 'status', status: 502, operationId: 'createPayout', times: 1 });
  const click = await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: 'C0APPROVALS', ts },
  });
  expect(click.status).toBe(200);
  const deadline = Date.now() + 15_000;
  while ((await r.bot.store.get(id))?.reconciliation === undefined) {
    if (Date.now() > deadline) throw new Error(`#${id} was not reconciled`);
    await sleep(50);
  }
  return id;
}

function payoutListReads(r: Rehearsal): number {
  return r.sandbox.requests.filter((request) => request.operationId === 'listPayouts').length;
}

/** One sweep: how many times it read the payouts list. */
async function sweep(r: Rehearsal): Promise<number> {
  const before = payoutListReads(r);
  await r.bot.workflow.sweep();
  return payoutListReads(r) - before;
}

async function reconciliations(r: Rehearsal, ids: readonly number[]) {
  return Promise.all(ids.map(async (id) => (await r.bot.store.get(id))?.reconciliation));
}

describe('a payouts list larger than payops reads', () => {
  it('is read once per sweep for every unknown outcome, and a reply past the byte cap or a list past the record cap is a check failed, never "not found"', {
    timeout: 120_000,
  }, async () => {
    const r = await startRehearsal({
      sandbox: { statusStepMs: 3_600_000 },
      env: { PAYOPS_DATA_DIR: dataDir },
      bot: { now: behind, sweepIntervalMs: 3_600_000 },
    });
    try {
      for (let n = 1; n <= UNKNOWN_OUTCOMES; n++) ids.push(await unknownPayout(r, 4100 + n));
      for (const request of await Promise.all(ids.map((id) => r.bot.store.get(id)))) {
        expect(request?.status).toBe('unknown');
      }

      // 8 MiB in one reply: not read past 2 MiB.
      r.sandbox.addFault({ kind: 'oversized', operationId: 'listPayouts' });
      expect(await sweep(r)).toBe(1);
      for (const reconciliation of await reconciliations(r, ids)) {
        expect(reconciliation?.result).toBe('check_failed');
        expect(said(reconciliation)).toContain('more than payops reads of one reply');
      }

      // Under the byte cap, but thousands of records: read up to the record cap.
      r.sandbox.clearFaults();
      r.sandbox.addFault({ kind: 'oversized', operationId: 'listPayouts', bytes: 1_500_000 });
      expect(await sweep(r)).toBe(1);
      for (const reconciliation of await reconciliations(r, ids)) {
        expect(reconciliation?.result).toBe('check_failed');
        expect(said(reconciliation)).toContain('payops reads at most 5000 records of a list');
      }

      // The bot is still up and answers; the list read whole again says what it shows.
      r.sandbox.clearFaults();
      expect(await sweep(r)).toBe(1);
      for (const reconciliation of await reconciliations(r, ids)) {
        expect(reconciliation?.result).toBe('not_found');
      }
      const detail = await ask(r, `request ${ids[0]}`, { userId: 'U0BOB' });
      expect(detail.shown).toContain(`#${ids[0]}`);
    } finally {
      // The store is kept for the start-up below: only the bot and its fakes stop.
      await r.close();
    }
  });

  it('does not hold start-up: a sweep whose list read hangs is left running and the bot starts', {
    timeout: 60_000,
  }, async () => {
    // The store of the test above, with its unknown outcomes due for a check.
    const r = await startRehearsal({
      env: { PAYOPS_DATA_DIR: dataDir },
      bot: { now: behind },
    });
    try {
      await r.bot.stop();
      r.sandbox.addFault({ kind: 'hang', operationId: 'listPayouts' });
      const readsBefore = payoutListReads(r);
      const started = Date.now();
      const logger = createLogger({ level: 'silent', secrets: [] });
      const bot = await startBot(loadConfig(r.env), logger, { now: behind });
      try {
        const startedInMs = Date.now() - started;
        // Under the read's own deadline (PAYMENTS_TIMEOUT_MS, 10 s), which the sweep waits for.
        expect(startedInMs).toBeLessThan(5_000);
        const health = await fetch(`http://127.0.0.1:${bot.port}/readyz`);
        expect(health.status).toBe(200);
        // Its sweep is under way meanwhile, waiting for the list.
        await r.slack.waitFor(() => payoutListReads(r) > readsBefore, {
          timeoutMs: 5_000,
          description: 'the start-up sweep reading the payouts list',
        });
      } finally {
        await bot.stop();
      }
    } finally {
      r.sandbox.clearFaults();
      await Promise.all([r.sandbox.close(), r.slack.close()]);
    }
  });

  it('a bot process on a small heap starts with it, says each check failed, and stays up', {
    timeout: 120_000,
  }, async (context) => {
    const r = await startRehearsal({
      env: { PAYOPS_DATA_DIR: dataDir },
      bot: { now: behind },
    });
    try {
      await r.bot.stop();
      r.sandbox.addFault({ kind: 'oversized', operationId: 'listPayouts' });
      const readsBefore = payoutListReads(r);
      const payops = await startPayops(
        'small-heap',
        payopsEnvironment(r.sandbox, r.slack, { PAYOPS_DATA_DIR: dataDir }),
        ['--max-old-space-size=128', '--import', 'tsx', 'src/main.ts'],
      );
      const driven = { ...r, driver: r.slack.driver(payops.eventsUrl) };
      const deadline = Date.now() + 30_000;
      for (const id of ids) {
        const shown = async () => (await ask(driven, `request ${id}`, { userId: 'U0BOB' })).shown;
        let text = await shown();
        while (!text.includes('more than payops reads of one reply')) {
          if (Date.now() > deadline) throw new Error(`#${id} not shown as a check failed: ${text}`);
          text = await shown();
          await sleep(500);
        }
      }
      // One sweep, one read of the list for all of them.
      expect(payoutListReads(r) - readsBefore).toBe(1);
      await payops.ready(5_000);
    } finally {
      await cleanUpPayops(context.task.result?.state === 'fail');
      await Promise.all([r.sandbox.close(), r.slack.close()]);
    }
  });
});
