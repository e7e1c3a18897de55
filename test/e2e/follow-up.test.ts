import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_KEY } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { followLookErrorText } from '../../src/slack/text/list-findings.ts';
import { sleep } from '../helpers/bot-process.ts';
import { ask } from '../helpers/slack.ts';

/**
 * After the click: a submitted payout is followed at the provider by reading its list (no
 * webhooks), each change of its status told in the card's thread and shown on the card, in
 * order and once, until a final status — all through signed Slack requests.
 */

const APPROVALS = 'C0APPROVALS';
/** Far shorter than the default minute, so a test sees several looks. */
const INTERVAL_MS = 100;
const LOOKS = 8;

let r: Rehearsal | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

async function rehearse(
  env: Record<string, string> = {},
  sandbox: { port?: number } = {},
): Promise<Rehearsal> {
  r = await startRehearsal({
    // The sandbox's own timed steps would race the test's: statuses move only when told to.
    sandbox: { statusStepMs: 3_600_000, ...sandbox },
    env: { PAYOPS_FOLLOW_INTERVAL_MS: String(INTERVAL_MS), ...env },
  });
  return r;
}

/** The payout to Jane Roe these tests request, of `cents`. */
function janePayout(cents: number): Record<string, string> {
  return {
    wallet_id: 'wal_acme_sol_treasury',
    amount: (cents / 100).toFixed(2),
    currency: 'USDC',
    beneficiary_name: 'Jane Roe',
    beneficiary_account: '000123456789',
    beneficiary_routing: '021000021',
    destination_type: 'ach',
  };
}

/** alice requests a payout, bob approves it: resolves once it is submitted, with its record's id. */
async function submittedPayout(
  r: Rehearsal,
  cents: number,
): Promise<{ id: number; ts: string; payoutId: string }> {
  const text = Object.entries(janePayout(cents))
    .map(([name, value]) => `${name}="${value}"`)
    .join(' ');
  const answer = await ask(r, `payout ${text}`, { timeoutMs: 20_000 });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  const ts = (await r.bot.store.get(id))?.messageTs as string;
  const click = await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: APPROVALS, ts },
  });
  expect(click.status).toBe(200);
  const request = await until(async () => {
    const stored = await r.bot.store.get(id);
    return stored?.status === 'submitted' && stored;
  }, `request #${id} submitted`);
  return { id, ts, payoutId: request.outcome?.providerId as string };
}

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A provider that queues payouts: it accepts one with `202 {"status":"queued"}`, no id and
 * nothing listed yet, and answers everything else as the provider at `origin` does.
 */
async function queueingProvider(origin: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === 'POST' && request.url === '/v1/payouts') {
      response.writeHead(202, { 'content-type': 'application/json' });
      response.end('{"status":"queued"}');
      return;
    }
    try {
      const answer = await fetch(`${origin}${request.url}`, {
        method: request.method,
        headers: { 'X-Api-Key': String(request.headers['x-api-key'] ?? '') },
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(await answer.text());
    } catch {
      // The sandbox dropped a kept-alive connection: a gateway's answer, which reads retry.
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end('{"error":{"code":"BAD_GATEWAY","message":"upstream connection lost"}}');
    }
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** What `select` resolves once it is truthy, looking every 20 ms for up to 10 s. */
async function until<T>(select: () => Promise<T | false | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const found = await select();
    if (found) return found;
    await sleep(20);
  }
  throw new Error(`no ${what} within 10 s`);
}

function thread(r: Rehearsal, ts: string): string[] {
  return r.slack
    .channel(APPROVALS)
    .messages.filter((message) => message.thread_ts === ts)
    .map((message) => message.text);
}

function card(r: Rehearsal, ts: string): string {
  return JSON.stringify(r.slack.message(APPROVALS, ts)?.blocks ?? []);
}

/** Moves the record, then waits until its thread tells of it. */
async function moveTo(
  r: Rehearsal,
  payout: { ts: string; payoutId: string },
  status: string,
): Promise<void> {
  expect(r.sandbox.setRecordStatus(payout.payoutId, status)).toBe(true);
  await r.slack.waitFor(
    () => thread(r, payout.ts).some((text) => text.includes(`→ \`${status}\``)),
    { timeoutMs: 10_000, description: `the change to ${status} told` },
  );
}

function listReads(r: Rehearsal): number {
  return r.sandbox.requests.filter((request) => request.operationId === 'listPayouts').length;
}

describe('following a submitted payout to its final status', () => {
  it("its requester's Home shows the provider status, redrawn as it changes", {
    timeout: 60_000,
  }, async () => {
    const r = await rehearse();
    await r.driver.event({
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
    });
    const payout = await submittedPayout(r, 2345);
    const home = () => JSON.stringify(r.slack.homeView('U0ALICE') ?? {});
    await r.slack.waitFor(() => home().includes('*Provider status:* `pending`'), {
      timeoutMs: 10_000,
      description: "alice's Home shows the provider status",
    });
    await moveTo(r, payout, 'Completed');
    await r.slack.waitFor(() => home().includes('`Completed`'), {
      timeoutMs: 10_000,
      description: "alice's Home redrawn with the final status",
    });
  });

  it('tells each change in the thread and on the card, in order and once, and stops at a failure status', {
    timeout: 60_000,
  }, async () => {
    const r = await rehearse();
    const payout = await submittedPayout(r, 1234);
    await r.slack.waitFor(() => card(r, payout.ts).includes('Provider status:'), {
      timeoutMs: 10_000,
      description: 'the card shows the provider status',
    });
    expect(card(r, payout.ts)).toContain('*Provider status:* `pending`');

    await moveTo(r, payout, 'processing');
    await r.slack.waitFor(() => card(r, payout.ts).includes('`processing`'), {
      timeoutMs: 10_000,
    });
    expect(card(r, payout.ts)).toContain('(was `pending`)');
    // The card still says what payops did: submitted, not settled.
    expect(card(r, payout.ts)).toContain('Submitted to the provider, not settled.');
    await moveTo(r, payout, 'in_review');
    // Final, whatever its case.
    await moveTo(r, payout, 'Failed');
    await r.slack.waitFor(() => card(r, payout.ts).includes('`Failed`'), { timeoutMs: 10_000 });
    expect(card(r, payout.ts)).toContain('(was `in_review`)');

    // Stopped: a later status is neither read nor told.
    await sleep(INTERVAL_MS * LOOKS);
    const readsAfterFinal = listReads(r);
    r.sandbox.setRecordStatus(payout.payoutId, 'completed');
    await sleep(INTERVAL_MS * LOOKS);
    expect(listReads(r)).toBe(readsAfterFinal);

    const told = thread(r, payout.ts);
    expect(told).toHaveLength(4);
    expect(told[0]).toContain('submitted to the provider (not settled)');
    expect(told.slice(1)).toEqual([
      expect.stringContaining(
        'Provider status changed: `pending` → `processing`. payops keeps following it.',
      ),
      expect.stringContaining('`processing` → `in_review`'),
      expect.stringContaining(
        ':x: Provider status changed: `in_review` → `Failed`. It failed: payops no longer follows it.',
      ),
    ]);
    expect(card(r, payout.ts)).toContain('· final');
    expect(card(r, payout.ts)).toContain(':x: `Failed`');

    const detail = await ask(r, `request ${payout.id}`, { userId: 'U0BOB' });
    expect(detail.shown).toContain('Provider status history');
    const order = ['`pending`', '`processing`', '`in_review`', '`Failed` (failure)'].map((status) =>
      detail.shown.indexOf(status),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('a payout completed then returned is told twice, in order, the return as loudly as a failure, and its card ends showing returned', {
    timeout: 60_000,
  }, async () => {
    const r = await rehearse();
    const payout = await submittedPayout(r, 4321);
    await moveTo(r, payout, 'completed');
    await r.slack.waitFor(
      () => card(r, payout.ts).includes('a success; payops watches for a return or reversal until'),
      { timeoutMs: 10_000, description: 'the card showing the success watched' },
    );
    // A success is still read, at the same pace.
    const readsAtSuccess = listReads(r);
    await sleep(INTERVAL_MS * LOOKS);
    expect(listReads(r)).toBeGreaterThan(readsAtSuccess);

    await moveTo(r, payout, 'returned');
    await r.slack.waitFor(() => card(r, payout.ts).includes('`returned`'), {
      timeoutMs: 10_000,
      description: 'the card showing the return',
    });
    const told = thread(r, payout.ts);
    expect(told).toEqual([
      expect.stringContaining('submitted to the provider (not settled)'),
      expect.stringContaining(
        'Provider status changed: `pending` → `completed`. It is a success; payops keeps watching it for a return or reversal until',
      ),
      expect.stringContaining(
        ':x: Provider status changed: `completed` → `returned`. The payment came back after it showed `completed`: the payee may not have been paid. Check it at the provider.',
      ),
    ]);
    expect(told[2]).toMatch(/^<@U0ALICE> #\d+ :x:/);
    const shown = card(r, payout.ts);
    expect(shown).toContain(':x: `returned`');
    expect(shown).toContain('(was `completed`)');
    expect(shown).toContain('final: it came back after `completed`');

    // Ended at the return: a later status is neither read nor told.
    await sleep(INTERVAL_MS * LOOKS);
    const readsAfterReturn = listReads(r);
    r.sandbox.setRecordStatus(payout.payoutId, 'completed');
    await sleep(INTERVAL_MS * LOOKS);
    expect(listReads(r)).toBe(readsAfterReturn);
    expect(thread(r, payout.ts)).toHaveLength(3);
  });

  it('one read serves every followed payout, a failing read does not stop following, and a record that disappears is told once', {
    timeout: 60_000,
  }, async () => {
    const r = await rehearse();
    const first = await submittedPayout(r, 2001);
    const second = await submittedPayout(r, 2002);
    // Both followed: a look at /payouts reads it once for both.
    await until(
      async () => (await r.bot.store.get(second.id))?.follow?.lastListedAt,
      'the second payout listed',
    );
    const before = listReads(r);
    await sleep(INTERVAL_MS * LOOKS);
    const reads = listReads(r) - before;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(LOOKS + 1);

    // The provider fails for a while: following goes on after.
    r.sandbox.addFault({ kind: 'status', status: 503, operationId: 'listPayouts', times: 6 });
    r.sandbox.setRecordStatus(first.payoutId, 'processing');
    await r.slack.waitFor(
      () => thread(r, first.ts).some((text) => text.includes('→ `processing`')),
      { timeoutMs: 15_000, description: 'the change told after the failures' },
    );

    expect(r.sandbox.removeRecord(second.payoutId)).toBe(true);
    await r.slack.waitFor(
      () => thread(r, second.ts).some((text) => text.includes('no longer listed at the provider')),
      { timeoutMs: 10_000, description: 'the missing record told' },
    );
    await sleep(INTERVAL_MS * LOOKS);
    expect(thread(r, second.ts).filter((text) => text.includes('no longer listed'))).toHaveLength(
      1,
    );
    expect(card(r, second.ts)).toContain('no longer listed at the provider since');
    expect((await r.bot.store.get(second.id))?.follow?.stoppedReason).toBeUndefined();
  });

  it('a write answered without its record’s id never takes an old look-alike the list shows undated, nor tells its status', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    const provider = await queueingProvider(`http://127.0.0.1:${port}`);
    try {
      const r = await rehearse({ PAYMENTS_BASE_URL: provider.url }, { port });
      // An earlier payout of the same amount to Jane, made at the provider's dashboard, returned.
      // On a connection of its own: one the proxy kept alive may be closed by the sandbox.
      const fresh = new Agent();
      const made = await request(`${r.sandbox.url}/payouts`, {
        method: 'POST',
        headers: { 'X-Api-Key': SANDBOX_KEY.full, 'Content-Type': 'application/json' },
        body: JSON.stringify(janePayout(5000)),
        dispatcher: fresh,
      });
      const old = ((await made.body.json()) as { id: string }).id;
      await fresh.close();
      expect(r.sandbox.setRecordStatus(old, 'returned')).toBe(true);
      // The list shows no creation time.
      r.sandbox.setListView({ renames: { created_at: 'booked' } });
      const payout = await submittedPayout(r, 5000);
      expect(payout.payoutId).toBeUndefined();

      const looked = await until(async () => {
        const follow = (await r.bot.store.get(payout.id))?.follow;
        return follow?.lastCheckedAt ? follow : undefined;
      }, 'a look at the list');
      expect(looked.lastError && followLookErrorText(looked.lastError)).toBe(
        `${old} in /payouts matches it but shows no creation time, so it may be an earlier payment; payops does not take it`,
      );
      await sleep(INTERVAL_MS * LOOKS);
      const follow = (await r.bot.store.get(payout.id))?.follow;
      expect(follow?.providerId).toBeUndefined();
      expect(follow?.history.map((seen) => seen.status)).toEqual(['queued']);
      expect(thread(r, payout.ts).join('\n')).not.toContain('returned');
      expect(card(r, payout.ts)).not.toContain('returned');
    } finally {
      await r?.close();
      r = undefined;
      await provider.close();
    }
  });
});

describe('what the card tells once it is decided', () => {
  it('the approver\'s warnings go at the approval, and a success at the provider replaces "not settled"', {
    timeout: 60_000,
  }, async () => {
    const r = await rehearse();
    const payout = await submittedPayout(r, 3456);
    // Its first drawing, while it waited for approval: the first payout to this account.
    const posted = r.slack
      .callsTo('chat.postMessage')
      .find((call) => (call.response as { ts?: string } | undefined)?.ts === payout.ts);
    const waiting = JSON.stringify(posted?.args.blocks);
    expect(waiting).toContain('*New payee:*');
    expect(waiting).toContain('*Checked when requested:*');

    await r.slack.waitFor(() => card(r, payout.ts).includes('*Provider status:* `pending`'), {
      timeoutMs: 10_000,
      description: 'the card redrawn once submitted',
    });
    const approved = card(r, payout.ts);
    expect(approved).toContain('*Payee tag:*');
    for (const warning of ['New payee', 'before approving', 'Checked when requested']) {
      expect(approved).not.toContain(warning);
    }

    await moveTo(r, payout, 'completed');
    await r.slack.waitFor(() => card(r, payout.ts).includes('Succeeded at the provider'), {
      timeoutMs: 10_000,
      description: 'the card telling the success',
    });
    const succeeded = card(r, payout.ts);
    expect(succeeded).toContain(':white_check_mark: *Succeeded at the provider:* `completed`.');
    expect(succeeded).not.toContain('not settled');
    expect(succeeded).not.toContain('provider status `pending`');
  });
});
