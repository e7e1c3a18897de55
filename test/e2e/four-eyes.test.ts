import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import {
  approvalMessageTs,
  ask,
  openPayoutForm,
  payoutsSent,
  requestFormValues,
} from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

/** `field=value …` for a command, quoting values with spaces. */
function fieldsText(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ');
}

interface Requested {
  id: number;
  ts: string;
  confirmation: string;
}

/** `/pay <word> …` as a requester; returns the request number and its approval message. */
async function request(r: Rehearsal, text: string, userId = 'U0ALICE'): Promise<Requested> {
  const answer = await ask(r, text, { userId });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  expect(id).toBeGreaterThan(0);
  return { id, ts: await approvalMessageTs(r, id, APPROVALS), confirmation: answer.shown };
}

/** A click on a request's message; `id` stands for a button still shown by a stale client. */
function click(r: Rehearsal, actionId: string, userId: string, ts: string, id?: number) {
  return r.driver.blockAction({
    userId,
    actionId,
    ...(id === undefined ? {} : { value: String(id) }),
    message: { channel: APPROVALS, ts },
  });
}

/**
 * The approval message as it now stands, once its fallback text matches (`cardMatching`) or
 * anything it shows, blocks too (`cardShowing`).
 */
async function cardWhere(r: Rehearsal, ts: string, shows: (args: unknown) => boolean) {
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && shows(call.args),
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(update.args);
}

const cardMatching = (r: Rehearsal, ts: string, pattern: RegExp) =>
  cardWhere(r, ts, (args) => pattern.test(String((args as { text?: unknown }).text)));
const cardShowing = (r: Rehearsal, ts: string, pattern: RegExp) =>
  cardWhere(r, ts, (args) => pattern.test(JSON.stringify(args)));

/** What the clicking person was told (an ephemeral on the action's response_url). */
async function toldAfter(
  r: Rehearsal,
  sent: { responseUrlId?: string | undefined },
): Promise<string> {
  const post = await r.slack.nextResponse(sent.responseUrlId as string);
  return String((post.body as { text?: unknown }).text);
}

/** Clicks Reject as carol; returns a way to submit its form with a reason. */
async function rejectForm(r: Rehearsal, ts: string) {
  const filled = r.slack.callsTo('views.update').length;
  await click(r, ACTION.reject, 'U0CAROL', ts);
  // The modal opens at once, then becomes the form once the click's permission is checked.
  const form = await r.slack.waitForCall(
    'views.update',
    (call) =>
      r.slack.callsTo('views.update').indexOf(call) >= filled &&
      JSON.stringify(call.args).includes(VIEW.rejectReason),
  );
  const viewId = String(form.args.view_id);
  return (reason: string) =>
    r.driver.viewSubmission({
      userId: 'U0CAROL',
      view: {
        id: viewId,
        state: { values: { reason: { reason: { type: 'plain_text_input', value: reason } } } },
      },
    });
}

describe('four-eyes approvals, end to end over signed Slack requests', () => {
  let r: Rehearsal;
  let clock = Date.now();
  const policyFile = join(tmpdir(), `payops-policy-${process.pid}.yml`);

  beforeAll(async () => {
    writeFileSync(
      policyFile,
      'rules:\n  - operations: [payout]\n    currency: USDC\n    min_amount: "10000"\n    approvals: 2\n',
    );
    r = await startRehearsal({
      env: { PAYOPS_POLICY_FILE: policyFile },
      // The rules of approval, not Slack's pace: test/e2e/slack-outbox.test.ts keeps to its limits.
      slack: { rateLimits: 'off' },
      bot: { now: () => new Date(clock), sweepIntervalMs: 100 },
    });
  });
  afterAll(() => r.close());
  afterEach(() => r.sandbox.clearFaults());

  it('request → message → own and non-approver clicks refused → approval → exactly the approved payload, once', async () => {
    const before = payoutsSent(r).length;
    const { id, ts, confirmation } = await request(r, `payout ${fieldsText(PAYOUT)}`);
    expect(confirmation).toContain(`#${id}`);
    expect(confirmation).toContain(ACTION.cancel);

    const card = JSON.stringify(
      r.slack
        .callsTo('chat.postMessage')
        .find((call) => call.response && (call.response as { ts?: string }).ts === ts)?.args,
    );
    expect(card).toContain('25.50');
    expect(card).toContain('ethereum'); // the wallet's label, looked up when it was requested
    expect(card).toContain('••••6789');
    expect(card).not.toContain('000123456789');
    expect(card).toContain(ACTION.approve);

    const own = await click(r, ACTION.approve, 'U0ALICE', ts);
    expect(await toldAfter(r, own)).toMatch(/cannot approve it/);
    const stranger = await click(r, ACTION.approve, 'U0ERIN', ts);
    expect(await toldAfter(r, stranger)).toMatch(
      /not an approver.*The approvers are <!subteam\^S0APPROVERS>.*ask #payops-admins/,
    );
    expect(payoutsSent(r).length).toBe(before);

    const approved = await click(r, ACTION.approve, 'U0BOB', ts);
    expect(approved.status).toBe(200);
    expect(approved.ackMs).toBeLessThan(1_000);
    const final = await cardMatching(r, ts, /submitted/);
    expect(final).toContain('not settled');
    expect(final).not.toContain(ACTION.approve);

    const sent = payoutsSent(r).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toBe(JSON.stringify(PAYOUT));
    const stored = await r.bot.store.get(id);
    expect(stored?.status).toBe('submitted');
    expect(stored?.outcome?.providerId).toMatch(/^po_/);
    // The last redraw is of the row the execution wrote, drawn without reading it again.
    expect(final).toContain('<@U0BOB>');
    expect(final).toContain(String(stored?.outcome?.providerId));
    const thread = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === ts,
    );
    expect(String(thread.args.text)).toContain('<@U0ALICE>');

    const events = (await r.bot.store.history(id)).map((entry) => entry.event);
    expect(events).toEqual(['requested', 'approved', 'claimed', 'submitted']);
  });

  it('50 concurrent Approve clicks on one request make one upstream call', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '3.00' })}`);
    const approvers = ['U0BOB', 'U0CAROL'];
    const clicks = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        click(r, ACTION.approve, approvers[index % 2] as string, ts),
      ),
    );
    expect(clicks.every((sent) => sent.status === 200)).toBe(true);
    await cardMatching(r, ts, /submitted/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(payoutsSent(r).length - before).toBe(1);
    expect((await r.bot.store.get(id))?.approvals).toHaveLength(1);
  });

  it('payouts of 10,000 USDC or more need two distinct approvers', async () => {
    const before = payoutsSent(r).length;
    const big = { ...PAYOUT, wallet_id: SANDBOX_IDS.wallet.solanaTreasury, amount: '10000.00' };
    const { id, ts } = await request(r, `payout ${fieldsText(big)}`);
    expect((await r.bot.store.get(id))?.requiredApprovals).toBe(2);

    const first = await click(r, ACTION.approve, 'U0BOB', ts);
    expect(await toldAfter(r, first)).toMatch(/1 of 2/);
    const again = await click(r, ACTION.approve, 'U0BOB', ts);
    expect(await toldAfter(r, again)).toMatch(/already/i);
    expect(payoutsSent(r).length).toBe(before);

    await click(r, ACTION.approve, 'U0CAROL', ts);
    await cardMatching(r, ts, /submitted/);
    expect(payoutsSent(r).length - before).toBe(1);
  });

  it('the message says "being sent" only while a slow call is in flight', async () => {
    const updatesOf = (ts: string) =>
      r.slack
        .callsTo('chat.update')
        .filter((call) => call.args.ts === ts)
        .map((call) => String(call.args.text));
    const slow = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '3.00' })}`);
    r.sandbox.setLatency(1_800);
    try {
      await click(r, ACTION.approve, 'U0BOB', slow.ts);
      await cardMatching(r, slow.ts, /submitted/i);
    } finally {
      r.sandbox.setLatency(0);
    }
    expect(updatesOf(slow.ts)).toEqual([
      expect.stringMatching(/: executing$/),
      expect.stringMatching(/submitted/i),
    ]);

    const prompt = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '3.01' })}`);
    await click(r, ACTION.approve, 'U0BOB', prompt.ts);
    await cardMatching(r, prompt.ts, /submitted/i);
    expect(updatesOf(prompt.ts)).toEqual([expect.stringMatching(/submitted/i)]);
  });

  it('a rejection asks for a reason, records it, and nothing is sent', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '4.00' })}`);
    const reject = await rejectForm(r, ts);
    expect(JSON.stringify((await reject('  ')).ack)).toContain('errors');
    await reject('wrong beneficiary');
    const card = await cardMatching(r, ts, /rejected/i);
    expect(card).toContain('wrong beneficiary');
    expect((await r.bot.store.get(id))?.status).toBe('rejected');
    expect(payoutsSent(r).length).toBe(before);
  });

  it("a rejection slowed by Slack's directory closes its form within 3 s and tells its outcome after", async () => {
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '4.40' })}`);
    const reject = await rejectForm(r, ts);
    // The approvers' group changed: the next permission check asks Slack, which is slow.
    await r.driver.event({ event: { type: 'subteam_members_changed', subteam_id: 'S0APPROVERS' } });
    r.slack.delayNext('usergroups.users.list', 3_500);
    const submitted = await reject('duplicate of #1');
    expect(submitted.status).toBe(200);
    expect(submitted.ackMs).toBeLessThan(2_900);
    expect(JSON.stringify(submitted.ack ?? {})).not.toContain('errors');
    const told = await r.slack.waitForCall(
      'chat.postEphemeral',
      (call) =>
        call.args.user === 'U0CAROL' && String(call.args.text).includes(`#${id} is rejected`),
      { timeoutMs: 8_000 },
    );
    expect(told.args.channel).toBe(APPROVALS);
    expect(await cardMatching(r, ts, /rejected/i)).toContain('duplicate of #1');
  });

  it('the requester can cancel while pending; nobody else can', async () => {
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '5.00' })}`);
    const foreign = await click(r, ACTION.cancel, 'U0BOB', ts, id);
    expect(await toldAfter(r, foreign)).toMatch(/Only the person who requested it/);
    // The requester's Cancel button sits on the ephemeral confirmation in their own channel.
    const own = await r.driver.blockAction({
      userId: 'U0ALICE',
      actionId: ACTION.cancel,
      value: String(id),
      message: { channel: 'C0PAYOPS', ts: '1700000000.000001' },
    });
    expect(await toldAfter(r, own)).toMatch(/cancelled/);
    await cardMatching(r, ts, /cancelled/i);
    const late = await click(r, ACTION.approve, 'U0BOB', ts, id);
    expect(await toldAfter(r, late)).toMatch(/cancelled/);
  });

  it('a click from any other message does not count', async () => {
    const { ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '6.00' })}`);
    const { id: otherId } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '6.50' })}`);
    const forged = await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      value: String(otherId),
      message: { channel: APPROVALS, ts },
    });
    expect(await toldAfter(r, forged)).toMatch(/its own approval message/);
    expect((await r.bot.store.get(otherId))?.approvals).toEqual([]);
  });

  it('an expired request cannot be approved, and its message says so', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '7.00' })}`);
    clock += 25 * 3_600_000;
    try {
      await cardMatching(r, ts, /expired/i);
      expect((await r.bot.store.get(id))?.status).toBe('expired');
      const late = await click(r, ACTION.approve, 'U0BOB', ts, id);
      expect(await toldAfter(r, late)).toMatch(/expired/);
      expect(payoutsSent(r).length).toBe(before);
    } finally {
      clock = Date.now();
    }
  });

  it('while frozen nothing is sent; after unfreeze the same request can be approved', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '8.00' })}`);
    expect((await ask(r, 'freeze', { userId: 'U0DAVE' })).shown).toMatch(/not an approver/);
    expect((await ask(r, 'freeze incident 7', { userId: 'U0BOB' })).shown).toContain('frozen');
    expect(await cardMatching(r, ts, /./)).toContain('incident 7');
    const frozen = await click(r, ACTION.approve, 'U0CAROL', ts);
    expect(await toldAfter(r, frozen)).toMatch(/frozen \(incident 7\)/);
    expect((await r.bot.store.get(id))?.status).toBe('pending');
    expect(payoutsSent(r).length).toBe(before);

    await ask(r, 'unfreeze', { userId: 'U0BOB' });
    await click(r, ACTION.approve, 'U0CAROL', ts);
    await cardMatching(r, ts, /submitted/);
    expect(payoutsSent(r).length - before).toBe(1);
  });

  it('a write whose connection drops after it executed: unknown, never resent, reconciled with its id', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '9.13' })}`);
    r.sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
    await click(r, ACTION.approve, 'U0BOB', ts);
    // The card may be drawn between the outcome and its reconciliation: wait for the latter.
    const card = await cardShowing(r, ts, /found\* a matching operation/);
    expect(card).toMatch(/not resubmit/i);
    const stored = await r.bot.store.get(id);
    expect(stored?.status).toBe('unknown');
    expect(stored?.reconciliation?.result).toBe('found');
    expect(stored?.reconciliation?.providerId).toMatch(/^po_/);
    const again = await click(r, ACTION.approve, 'U0CAROL', ts, id);
    expect(await toldAfter(r, again)).toMatch(/unknown/);
    expect(payoutsSent(r).length - before).toBe(1);
  });

  it('the same payout is held while an earlier one is unknown and unchecked, until an approver settles it', async () => {
    const before = payoutsSent(r).length;
    const text = `payout ${fieldsText({ ...PAYOUT, amount: '9.21' })}`;
    const first = await request(r, text);
    const twin = await request(r, text);
    // A 500 after sending (it may have executed), and a list that cannot be read to check.
    r.sandbox.addFault({ kind: 'status', operationId: 'createPayout', status: 500, times: 1 });
    r.sandbox.addFault({ kind: 'status', operationId: 'listPayouts', status: 503 });
    await click(r, ACTION.approve, 'U0BOB', first.ts);
    const unknown = await cardShowing(r, first.ts, /the check failed/);
    expect(unknown).toContain(`/pay resolve ${first.id}`);

    const approveTwin = await click(r, ACTION.approve, 'U0CAROL', twin.ts);
    expect(await toldAfter(r, approveTwin)).toContain(
      `Your approval of #${twin.id} was not counted (it stays pending): request #${first.id} is for the same write or the same payment (payee, wallet, amount and currency) and has an unknown outcome`,
    );
    const third = await ask(r, text);
    expect(third.shown).toContain(`Not requested: request #${first.id}`);
    expect(third.shown).not.toMatch(/Request #\d+/);

    expect((await ask(r, `resolve ${first.id} not-executed`, { userId: 'U0BOB' })).shown).toMatch(
      /what you checked/,
    );
    const byRequester = await ask(r, `resolve ${first.id} not-executed looked`);
    expect(byRequester.shown).toContain('another approver must confirm');
    const resolved = await ask(r, `resolve ${first.id} not-executed no payout in the dashboard`, {
      userId: 'U0BOB',
    });
    expect(resolved.shown).toContain('recorded as not executed');
    const redrawn = await r.slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === first.ts && JSON.stringify(call.args).includes('Resolved by'),
    );
    expect(JSON.stringify(redrawn.args)).toContain('no payout in the dashboard');
    const again = await ask(r, `resolve ${first.id} executed changed my mind`, {
      userId: 'U0CAROL',
    });
    expect(again.shown).toContain('already resolved by <@U0BOB>');
    r.sandbox.clearFaults();

    await click(r, ACTION.approve, 'U0CAROL', twin.ts);
    await cardMatching(r, twin.ts, /submitted/);
    expect(payoutsSent(r).length - before).toBe(2);
    const events = (await r.bot.store.history(first.id)).map(
      (entry) => `${entry.event}:${entry.actor}`,
    );
    expect(events.at(-1)).toBe('resolved:U0BOB');
    expect((await r.bot.store.get(first.id))?.status).toBe('unknown');
  });

  it('a write typed by someone who may not request names those who may', async () => {
    const answer = await ask(r, `payout ${fieldsText(PAYOUT)}`, { userId: 'U0BOB' });
    expect(answer.shown).toMatch(
      /may not request payments.*Those who may are <@U0ALICE>, <@U0DAVE>.*ask #payops-admins/,
    );
    // Told the same before any advice on fixing a request they may not make.
    const mistyped = await ask(r, 'payout 10.00 EUR to dave', { userId: 'U0BOB' });
    expect(mistyped.shown).toMatch(/may not request payments/);
    expect(mistyped.shown).not.toContain('too many');
  });

  it('field=value mistakes name the field, and nothing is stored', async () => {
    const { beneficiary_account: _, ...withoutAccount } = PAYOUT;
    const answer = await ask(
      r,
      `payout ${fieldsText({ ...withoutAccount, amount: '1,000', bogus: 'x' })}`,
    );
    // One line per mistake, each starting with its field.
    const [lead, ...lines] = String(answer.body.text).split('\n');
    expect(lead).toContain('not created');
    expect(lines.map((line) => /^• (\w+):/.exec(line)?.[1]).sort()).toEqual([
      'amount',
      'beneficiary_account',
      'bogus',
    ]);
    expect(lines.find((line) => line.startsWith('• beneficiary_account:'))).toBe(
      '• beneficiary_account: missing (every field is needed)',
    );
  });

  it("a form's request, from where payops cannot post, is confirmed by direct message", async () => {
    const viewId = await openPayoutForm(r);
    // As from a channel payops is not in: Slack refuses the ephemeral there.
    r.slack.failNext('chat.postEphemeral', 'not_in_channel');
    const values = requestFormValues({ ...PAYOUT, amount: '12.61' });
    const accepted = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: { id: viewId, state: { values } },
    });
    expect(accepted.ack).toBeUndefined();
    const told = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === 'U0ALICE' && /created/.test(JSON.stringify(call.args)),
      { timeoutMs: 10_000 },
    );
    expect(JSON.stringify(told.args)).toContain('12.61');
  });

  it('the modal opens from the bare command, and its errors are shown per field', async () => {
    const viewId = await openPayoutForm(r);
    const values = requestFormValues({ ...PAYOUT, amount: '12.5.0', currency: 'US$' });
    const rejected = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: { id: viewId, state: { values } },
    });
    const errors = (rejected.ack as { errors?: Record<string, string> }).errors ?? {};
    expect(Object.keys(errors).sort()).toEqual(['amount', 'currency']);

    values.amount = { amount: { type: 'plain_text_input', value: '12.50' } };
    values.currency = { currency: { type: 'plain_text_input', value: 'USDC' } };
    const accepted = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: { id: viewId, state: { values } },
    });
    expect(accepted.ack).toBeUndefined();
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && String(call.args.text).includes('12.50'),
    );
    expect(String(card.args.text)).toContain('12.50 USDC');
  });

  it('/pay requests, /pay request N and /pay audit for approvers', async () => {
    const { id } = await request(r, `payout ${fieldsText({ ...PAYOUT, amount: '2.00' })}`);
    expect((await ask(r, 'requests', { userId: 'U0BOB' })).shown).toContain(`#${id}`);
    const detail = await ask(r, `request ${id}`, { userId: 'U0BOB' });
    expect(detail.shown).toContain('requested (→ pending)');
    expect((await ask(r, 'audit', { userId: 'U0DAVE' })).shown).toMatch(/not set up|ask/i);
    // Typed in #payops, delivered only to the approvals channel.
    expect((await ask(r, 'audit', { userId: 'U0BOB' })).shown).toContain(`<#${APPROVALS}>`);
    const file = r.slack.files().at(-1);
    const csv = file?.bytes?.toString('utf8') ?? '';
    expect(csv.split('\r\n')[0]).toBe(
      '"id","at","request","actor","event","from","to","fingerprint","detail"',
    );
    expect(csv).toContain('"approved"');
    expect(csv).not.toContain('000123456789');
  });

  it('/pay help lists what each person may run, by role', async () => {
    const alice = (await ask(r, 'help', { userId: 'U0ALICE' })).shown;
    expect(alice).toContain('/pay payout');
    expect(alice).toContain('/pay wallets');
    const dave = (await ask(r, 'help', { userId: 'U0DAVE' })).shown;
    expect(dave).toContain('/pay payout');
    expect(dave).not.toContain('/pay freeze');
    expect((await ask(r, 'help', { userId: 'U0BOB' })).shown).toContain('/pay freeze');
    expect((await ask(r, 'help', { userId: 'U0ERIN' })).shown).toContain('#payops-admins');
  });
});
