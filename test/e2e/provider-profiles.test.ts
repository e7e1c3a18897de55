import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWriteList } from '../../src/app/reconcile.ts';
import { loadConfig } from '../../src/config.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { createLogger } from '../../src/logger.ts';
import { PaymentsClient } from '../../src/payments/client.ts';
import {
  REHEARSAL_APPROVALS_CHANNEL,
  type RestartableRehearsal,
  startRehearsal,
} from '../../src/rehearsal/rehearsal.ts';
import {
  PROFILE_NAMES,
  PROFILES,
  type RecordedRequest,
  SANDBOX_IDS,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { reconciliationDetailText } from '../../src/slack/text/list-findings.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

/**
 * The core flows, through signed Slack requests to the real bot, against every provider profile
 * of the sandbox (src/rehearsal/sandbox/provider-profiles.ts): each profile answers as another plausible
 * provider would where the spec shows nothing, so a flow green only on `default` is a flow that
 * holds only under payops's own assumptions.
 *
 * One bot per profile, on an embedded store on disk so that it can be restarted, each a copy of
 * one store made at the start (creating a store costs far more than opening a copy). The
 * profiles run side by side, each its own sandbox, Slack and bot; a profile's flows one after
 * another, as they share its bot.
 */

const APPROVALS = REHEARSAL_APPROVALS_CHANNEL;
/** Holds 98000.00 USDC and no other currency. */
const WALLET = SANDBOX_IDS.wallet.solanaTreasury;
const ACCOUNT = '000123456789';
/** A status step short enough that a payout reaches its final status within a second or two. */
const STATUS_STEP_MS = 400;
const WAIT_MS = 15_000;
const silent = createLogger({ level: 'silent', secrets: [] });

const storeTemplate = mkdtempSync(join(tmpdir(), 'payops-profiles-'));
beforeAll(async () => {
  const created = await startRehearsal({ env: { PAYOPS_DATA_DIR: storeTemplate } });
  await created.close();
}, 120_000);
afterAll(() => rmSync(storeTemplate, { recursive: true, force: true }));

/** One after another within a profile: its flows share one bot, which some restart. */
const flow = it.sequential;

describe.concurrent.each(PROFILE_NAMES)('against the %s provider', (name) => {
  const profile = PROFILES[name];
  /** The currency this provider's payouts over ACH are requested in. */
  const currency = profile.payoutCurrency === 'fiat' ? 'USD' : 'USDC';
  const [, , final] = profile.lifecycle;
  const dataDir = mkdtempSync(join(tmpdir(), `payops-profile-${name}-`));
  let r: RestartableRehearsal;

  beforeAll(async () => {
    cpSync(storeTemplate, dataDir, { recursive: true });
    r = await startRehearsal({
      sandbox: { profile: name, statusStepMs: STATUS_STEP_MS },
      slack: { rateLimits: 'off' },
      env: { PAYOPS_DATA_DIR: dataDir, PAYOPS_FOLLOW_INTERVAL_MS: '100' },
    });
  }, 60_000);
  afterAll(async () => {
    await r?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function payoutText(amount: string, { account = ACCOUNT, inCurrency = currency } = {}): string {
    return `payout wallet_id=${WALLET} amount=${amount} currency=${inCurrency} beneficiary_name="Jane Roe" beneficiary_account=${account} beneficiary_routing=021000021 destination_type=ach`;
  }

  /** alice asks for it in Slack: the request's number and its approval message. */
  async function request(text: string): Promise<{ id: number; ts: string }> {
    const answer = await ask(r, text, { timeoutMs: WAIT_MS });
    const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
    expect(id, `not requested: ${answer.shown}`).toBeGreaterThan(0);
    return { id, ts: await approvalMessageTs(r, id, APPROVALS) };
  }

  function approve(ts: string, userId = 'U0BOB') {
    return r.driver.blockAction({
      userId,
      actionId: ACTION.approve,
      message: { channel: APPROVALS, ts },
    });
  }

  /** The payouts with this amount the provider was asked for, executed or refused. */
  function callsOf(amount: string): RecordedRequest[] {
    return r.sandbox.requests.filter(
      (entry) =>
        entry.operationId === 'createPayout' &&
        (JSON.parse(entry.body) as { amount?: string }).amount === amount,
    );
  }

  /** The payouts the provider executed with this amount: each is one write of one request. */
  function writesOf(amount: string): RecordedRequest[] {
    return callsOf(amount).filter((entry) => entry.executed);
  }

  function card(ts: string): string {
    return JSON.stringify(r.slack.message(APPROVALS, ts) ?? {});
  }

  function thread(ts: string): string[] {
    return r.slack
      .channel(APPROVALS)
      .messages.filter((message) => message.thread_ts === ts)
      .map((message) => message.text);
  }

  /**
   * What `select` gives once it is truthy, looking every 50 ms; past WAIT_MS, a failure that
   * shows what `shown` says instead.
   */
  async function eventually<T>(
    what: string,
    select: () => T | Promise<T>,
    shown: () => unknown,
  ): Promise<NonNullable<T>> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = await select();
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no ${what} within ${WAIT_MS} ms; instead: ${JSON.stringify(shown())}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The thread's messages telling a change to `status`. */
  const tells = (ts: string, status: string) =>
    thread(ts).filter((text) => text.includes(`→ \`${status}\``));

  function threadTells(ts: string, status: string): Promise<unknown> {
    return eventually(
      `the change to ${status} told in the thread`,
      () => tells(ts, status).length > 0,
      () => thread(ts),
    );
  }

  function cardShows(ts: string, pattern: RegExp): Promise<unknown> {
    return eventually(
      `the card showing ${pattern}`,
      () => pattern.test(card(ts)),
      () => card(ts),
    );
  }

  function stored(id: number, status: string): Promise<PaymentRequest> {
    let found: PaymentRequest | undefined;
    return eventually(
      `request #${id} ${status}`,
      async () => {
        found = await r.bot.store.get(id);
        return found?.status === status ? found : undefined;
      },
      () => found,
    );
  }

  flow(
    'a payout requested, approved by another person, is written once and followed to its final status in its thread',
    {
      timeout: 60_000,
    },
    async () => {
      const { id, ts } = await request(payoutText('11.01'));
      expect((await approve(ts)).status).toBe(200);
      await stored(id, 'submitted');
      await threadTells(ts, final);
      expect(writesOf('11.01')).toHaveLength(1);
      expect(tells(ts, final)).toHaveLength(1);
    },
  );

  /**
   * A provider that dates no record (terse) cannot show that a record is newer than the call: a
   * look-alike may be an earlier identical payment, so payops says ambiguous and an approver
   * settles it, never payops alone (docs/payments-client.md, Provider profiles).
   */
  const datesItsRecords = name !== 'terse';

  flow(
    datesItsRecords
      ? 'a dropped connection on the payout: its outcome unknown, then found at the provider'
      : 'a dropped connection on the payout: its outcome unknown, its undated look-alike ambiguous, then settled by an approver',
    {
      timeout: 60_000,
    },
    async () => {
      const { id, ts } = await request(payoutText('12.02'));
      r.sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
      await approve(ts);
      const unknown = await stored(id, 'unknown');
      const reconciliation = await eventually(
        `request #${id} reconciled`,
        async () => (await r.bot.store.get(id))?.reconciliation,
        () => unknown,
      );
      expect(writesOf('12.02')).toHaveLength(1);
      if (datesItsRecords) {
        expect(reconciliation, JSON.stringify(reconciliation)).toMatchObject({
          result: 'found',
          providerId: expect.stringMatching(/^po_/),
        });
        await cardShows(ts, /found\* a matching operation/);
        return;
      }
      expect(reconciliation, JSON.stringify(reconciliation)).toMatchObject({ result: 'ambiguous' });
      expect(reconciliationDetailText(reconciliation)).toContain('shows no creation time');
      expect(reconciliation.providerId).toBeUndefined();
      const resolved = await ask(r, `resolve ${id} executed listed as paid to ••••6789`, {
        userId: 'U0CAROL',
        timeoutMs: WAIT_MS,
      });
      expect(resolved.shown).toContain('recorded as executed');
      expect((await r.bot.store.get(id))?.reconciliation).toMatchObject({
        result: 'found',
        resolvedBy: 'U0CAROL',
      });
    },
  );

  flow(
    'the same payment asked again while the first one’s outcome is unknown is held',
    {
      timeout: 60_000,
    },
    async () => {
      const text = payoutText('13.03');
      const first = await request(text);
      // Executed, answered 500, and the list that would show it cannot be read.
      r.sandbox.addFault({
        kind: 'status',
        operationId: 'createPayout',
        status: 500,
        execute: true,
        times: 1,
      });
      r.sandbox.addFault({ kind: 'status', operationId: 'listPayouts', status: 503 });
      try {
        await approve(first.ts);
        await cardShows(first.ts, /the check failed/);
        const again = await ask(r, text, { timeoutMs: WAIT_MS });
        expect(again.shown).toContain(`Not requested: request #${first.id}`);
        expect(again.shown).not.toMatch(/Request #\d+/);
      } finally {
        r.sandbox.clearFaults();
      }
      expect(writesOf('13.03')).toHaveLength(1);
    },
  );

  /**
   * A USD payout from the wallet holding only USDC: the card notes the currencies, and payops
   * sends it once, as approved. A provider paying only in the wallet's own currency refuses it
   * itself: its word, never payops's guess.
   */
  async function usdPayoutFromUsdcWallet(amount: string): Promise<void> {
    const { id, ts } = await request(payoutText(amount, { inCurrency: 'USD' }));
    expect(card(ts)).toMatch(/USDC.*the payout is in USD: payops cannot compare them/);
    expect(card(ts)).not.toContain('holds no USD');
    await approve(ts);
    const received = () => callsOf(amount);
    if (profile.payoutCurrency === 'wallet') {
      const failed = await stored(id, 'failed');
      expect(failed.outcome?.status).toBe(422);
      expect(writesOf(amount)).toHaveLength(0);
    } else {
      await stored(id, 'submitted');
      expect(writesOf(amount)).toHaveLength(1);
    }
    expect(received()).toHaveLength(1);
    expect(JSON.parse(received()[0]?.body ?? '{}')).toMatchObject({ currency: 'USD' });
  }

  flow(
    'a USD payout from a wallet that lists only USDC is sent once, as approved, its card noting the currencies',
    { timeout: 60_000 },
    () => usdPayoutFromUsdcWallet('15.05'),
  );

  flow(
    'a restart before the approval and another while following keep the request and send nothing twice',
    {
      timeout: 90_000,
    },
    async () => {
      const { id, ts } = await request(payoutText('14.04'));
      await r.restart();
      await stored(id, 'pending');
      expect((await approve(ts)).status).toBe(200);
      await stored(id, 'submitted');
      // Back under strict pre-flight, as a deploy may change a setting; the flows after it use it.
      await r.restart({ PAYOPS_PREFLIGHT: 'strict' });
      await threadTells(ts, final);
      expect(writesOf('14.04')).toHaveLength(1);
      expect(tells(ts, final)).toHaveLength(1);
    },
  );

  flow(
    'a payout completed, then returned by the bank, is told twice, in order',
    {
      timeout: 60_000,
    },
    async () => {
      const { id, ts } = await request(payoutText('17.07', { account: profile.returns?.account }));
      await approve(ts);
      const providerId = (await stored(id, 'submitted')).outcome?.providerId ?? '';
      // Held at its final word until payops has told it, however slowly it looks; then the bank
      // returns it (stablecoin-offramp's test account comes back so by itself, later).
      expect(r.sandbox.setRecordStatus(providerId, final)).toBe(true);
      await threadTells(ts, final);
      expect(r.sandbox.setRecordStatus(providerId, 'returned')).toBe(true);
      await threadTells(ts, 'returned');
      const told = thread(ts);
      const completed = told.findIndex((text) => text.includes(`→ \`${final}\``));
      const returned = told.findIndex((text) => text.includes('→ `returned`'));
      expect(completed, JSON.stringify(told)).toBeGreaterThanOrEqual(0);
      expect(returned).toBeGreaterThan(completed);
      expect(writesOf('17.07')).toHaveLength(1);
    },
  );

  flow('the same USD payout under PAYOPS_PREFLIGHT=strict', { timeout: 60_000 }, async () => {
    expect(r.env.PAYOPS_PREFLIGHT).toBe('strict');
    await usdPayoutFromUsdcWallet('16.06');
  });

  flow(
    "payops's list reader reads this provider's payouts to the end of the list, page after page",
    async () => {
      const client = new PaymentsClient({ ...loadConfig(r.env).payments, logger: silent });
      try {
        const read = await readWriteList(client, 'listPayouts', { since: 0 });
        const seeded = 2;
        const made = r.sandbox.requests.filter(
          (entry) => entry.operationId === 'createPayout' && entry.executed,
        ).length;
        expect(read.unfinished).toBeUndefined();
        expect(read.records).toHaveLength(seeded + made);
        const { pageSize } = profile.list;
        expect(read.pages).toBe(pageSize === undefined ? 1 : Math.ceil((seeded + made) / pageSize));
      } finally {
        await client.close();
      }
    },
  );
});
