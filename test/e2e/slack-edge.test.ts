import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import {
  type SignedRequest,
  sendExactly,
  signSlackRequest,
} from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { ask, openPayoutForm, requestFormValues } from '../helpers/slack.ts';

/**
 * What reaches payops at its Slack edge, over real signed HTTP: text as Slack escapes it, text
 * no database can hold, and requests replayed, from the future, oversized or not an object.
 */

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const nowSec = () => Math.floor(Date.now() / 1000);

let r: Rehearsal;
beforeAll(async () => {
  r = await startRehearsal({ slack: { rateLimits: 'off' } });
});
afterAll(() => r.close());

/** `/pay payout …` with every field of the example, `overrides` on top, each value quoted. */
function payoutText(overrides: Record<string, string>): string {
  const fields = Object.entries({ ...PAYOUT, ...overrides });
  return `payout ${fields.map(([name, value]) => `${name}="${value}"`).join(' ')}`;
}

async function pendingWhere(match: (request: PaymentRequest) => boolean) {
  return (await r.bot.store.listPending(100)).requests.filter(match);
}

/** A request's approval message, once posted. */
async function cardOf(id: number): Promise<string> {
  const card = await r.slack.waitForCall(
    'chat.postMessage',
    (call) => call.args.channel === APPROVALS && String(call.args.text).startsWith(`#${id} `),
  );
  return (card.response as unknown as { ts: string }).ts;
}

/** A click on a button of the approval message `ts`, carrying the value the message gives it. */
function clickOn(ts: string, actionId: string, userId: string) {
  return r.driver.blockAction({
    userId,
    actionId,
    message: { channel: APPROVALS, ts },
  });
}

/** Requests a payout by command and returns its number and approval message. */
async function requested(overrides: Record<string, string>) {
  const answer = await ask(r, payoutText(overrides));
  const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
  expect(id).toBeGreaterThan(0);
  return { id, ts: await cardOf(id) };
}

/** What Bolt's signature check ignores, after a second `=`: each made a replay look new. */
const SIGNATURE_SUFFIXES = ['=x', '=y', '=', `=${'z'.repeat(4_000)}`];

/** The same bytes, their signature with `suffix` appended. */
function withSignatureSuffix(request: SignedRequest, suffix: string): SignedRequest {
  const signature = request.headers['X-Slack-Signature'];
  return { ...request, headers: { ...request.headers, 'X-Slack-Signature': signature + suffix } };
}

/** A body signed with the given timestamp, posted to the bot; its answer within 5 s. */
async function signedPost(body: string, contentType: string, timestampSec = nowSec()) {
  const headers = {
    'Content-Type': contentType,
    'X-Slack-Request-Timestamp': String(timestampSec),
    'X-Slack-Signature': signSlackRequest(r.slack.config.signingSecret, timestampSec, body),
  };
  const response = await fetch(r.botUrl, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.text() };
}

describe('text as Slack escapes it', () => {
  it('a name with `&` typed in the command is the name typed in the form: one fingerprint, sent as typed', async () => {
    const name = 'Smith & Sons <UK>';
    const byCommand = await requested({ beneficiary_name: name, amount: '7.01' });

    const viewId = await openPayoutForm(r);
    const values = requestFormValues({ ...PAYOUT, beneficiary_name: name, amount: '7.01' });
    const submitted = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: { id: viewId, state: { values } },
    });
    expect(submitted.ack).toBeUndefined();
    await expect
      .poll(() => pendingWhere((request) => request.body?.includes('Smith') ?? false))
      .toHaveLength(2);

    const [first, second] = await pendingWhere(
      (request) => request.body?.includes('Smith') ?? false,
    );
    expect(JSON.parse(first?.body ?? '{}').beneficiary_name).toBe(name);
    expect(second?.body).toBe(first?.body);
    expect(second?.fingerprint).toBe(first?.fingerprint);

    const before = r.sandbox.requests.length;
    await clickOn(byCommand.ts, ACTION.approve, 'U0BOB');
    await expect
      .poll(() => r.sandbox.requests.slice(before).find((e) => e.operationId === 'createPayout'))
      .toBeDefined();
    const payout = r.sandbox.requests.slice(before).find((e) => e.operationId === 'createPayout');
    expect(JSON.parse(String(payout?.body)).beneficiary_name).toBe(name);
  });

  it('what a command quotes back of the text typed shows as typed, never as Slack markup', async () => {
    const answer = await ask(r, 'payout <!here> amount=1');
    expect(answer.shown).toContain('`&lt;!here&gt;` is one word too many');
    expect(answer.shown).not.toContain('<!here>');
  });
});

describe('text no record can hold', () => {
  it('a NUL in the reason of /pay freeze still freezes, the character dropped', async () => {
    const frozen = await ask(r, 'freeze provider incident\u0000 #42', { userId: 'U0BOB' });
    expect(frozen.shown).toContain('Payments are frozen (provider incident #42)');
    const state = await r.bot.workflow.freezeState();
    expect(state).toMatchObject({ frozen: true, reason: 'provider incident #42' });

    const long = await ask(r, `freeze ${'x'.repeat(400)}`, { userId: 'U0BOB' });
    expect(long.shown).toContain('cut to 300 characters');
    expect((await r.bot.workflow.freezeState()).reason).toHaveLength(300);
    await ask(r, 'unfreeze', { userId: 'U0BOB' });
  });

  it('a freeze reason quoted back to an approver shows as typed, never as a link', async () => {
    const { ts } = await requested({ amount: '7.05' });
    await ask(r, 'freeze see <https://evil.example|the incident doc>', { userId: 'U0BOB' });
    try {
      const click = await clickOn(ts, ACTION.approve, 'U0CAROL');
      const answer = JSON.stringify((await r.slack.nextResponse(click.responseUrlId ?? '')).body);
      expect(answer).toContain('Payments are frozen (see ');
      expect(answer).not.toContain('<https://evil.example');
      expect(answer).toContain('&lt;https://evil.example|the incident doc&gt;');
    } finally {
      await ask(r, 'unfreeze', { userId: 'U0BOB' });
    }
  });

  it('a NUL in a resolve note is dropped; an over-long note is refused with a message', async () => {
    const { id, ts } = await requested({ amount: '7.02' });
    // A 500 after sending and a list that cannot be read: the outcome stays unknown.
    r.sandbox.addFault({ kind: 'status', operationId: 'createPayout', status: 500, times: 1 });
    r.sandbox.addFault({ kind: 'status', operationId: 'listPayouts', status: 503 });
    try {
      await clickOn(ts, ACTION.approve, 'U0BOB');
      await expect.poll(async () => (await r.bot.store.get(id))?.status).toBe('unknown');

      const tooLong = await ask(r, `resolve ${id} not-executed ${'y'.repeat(501)}`, {
        userId: 'U0CAROL',
      });
      expect(tooLong.shown).toContain('The note is 501 characters long; at most 500');
      const resolved = await ask(r, `resolve ${id} not-executed no payout\u0000 in the dashboard`, {
        userId: 'U0CAROL',
      });
      expect(resolved.shown).toContain('recorded as not executed');
      const stored = await r.bot.store.get(id);
      expect(stored?.reconciliation?.detail).toBe('no payout in the dashboard');
    } finally {
      r.sandbox.clearFaults();
    }
  });

  it('a NUL in a rejection reason is dropped and the request is rejected', async () => {
    const { id, ts } = await requested({ amount: '7.03' });
    const formsBefore = r.slack.callsTo('views.update').length;
    await clickOn(ts, ACTION.reject, 'U0CAROL');
    const form = await r.slack.waitForCall(
      'views.update',
      (call) =>
        r.slack.callsTo('views.update').indexOf(call) >= formsBefore &&
        JSON.stringify(call.args).includes(VIEW.rejectReason),
    );
    const submitted = await r.driver.viewSubmission({
      userId: 'U0CAROL',
      view: {
        id: String(form.args.view_id),
        state: {
          values: { reason: { reason: { type: 'plain_text_input', value: 'wrong\u0000 name' } } },
        },
      },
    });
    expect(submitted.ack).toBeUndefined();
    const stored = await r.bot.store.get(id);
    expect(stored).toMatchObject({ status: 'rejected', reason: 'wrong name' });
  });
});

describe('signed requests at the edge', () => {
  /** A signed `/pay payout` of `amount`, answered and stored once. */
  async function payoutRequested(amount: string) {
    const text = payoutText({ amount });
    const sent = await r.driver.slashCommand({ text, userId: 'U0ALICE', channelId: 'C0PAYOPS' });
    await r.slack.nextResponse(sent.responseUrlId);
    const ofThisPayout = () =>
      pendingWhere((request) => request.body?.includes(`"${amount}"`) ?? false);
    expect(await ofThisPayout()).toHaveLength(1);
    return {
      request: sent.request,
      async expectTakenOnce() {
        // Long enough for a second request to be stored and answered, were it taken.
        await sleep(750);
        expect(await ofThisPayout()).toHaveLength(1);
        expect(r.slack.responsesTo(sent.responseUrlId)).toHaveLength(1);
      },
    };
  }

  it('a byte-identical replay of a signed /pay payout is acknowledged and does nothing', async () => {
    const payout = await payoutRequested('7.04');
    const replayed = await r.driver.replay(payout.request);
    expect(replayed).toMatchObject({ status: 200, body: '' });
    await payout.expectTakenOnce();
  });

  it('a captured /pay unfreeze replayed with a suffix on its signature is refused and the freeze holds', async () => {
    await ask(r, 'freeze first drill', { userId: 'U0BOB' });
    const unfreeze = await r.driver.slashCommand({
      text: 'unfreeze',
      userId: 'U0BOB',
      channelId: 'C0PAYOPS',
    });
    await r.slack.nextResponse(unfreeze.responseUrlId);
    expect((await r.bot.workflow.freezeState()).frozen).toBe(false);

    await ask(r, 'freeze second drill', { userId: 'U0BOB' });
    try {
      for (const suffix of SIGNATURE_SUFFIXES) {
        const replayed = await r.driver.replay(withSignatureSuffix(unfreeze.request, suffix));
        expect(replayed.status, suffix).toBe(401);
      }
      await sleep(500);
      expect(await r.bot.workflow.freezeState()).toMatchObject({
        frozen: true,
        reason: 'second drill',
      });
      expect(r.slack.responsesTo(unfreeze.responseUrlId)).toHaveLength(1);
    } finally {
      await ask(r, 'unfreeze', { userId: 'U0BOB' });
    }
  });

  it('a captured /pay payout replayed with suffixes on its signature makes no second request', async () => {
    const payout = await payoutRequested('7.06');
    for (const suffix of SIGNATURE_SUFFIXES) {
      const replayed = await r.driver.replay(withSignatureSuffix(payout.request, suffix));
      expect(replayed.status, suffix).toBe(401);
    }
    await payout.expectTakenOnce();
  });

  it('a timestamp from the future is refused like a bad signature, beyond a minute ahead', async () => {
    const forged = await r.driver.slashCommand(
      { text: 'freeze from the future', userId: 'U0BOB', channelId: 'C0PAYOPS' },
      { forge: 'future-timestamp' },
    );
    expect(forged.status).toBe(401);
    await sleep(300);
    expect((await r.bot.workflow.freezeState()).frozen).toBe(false);

    const challenge = (value: string) =>
      JSON.stringify({ type: 'url_verification', challenge: value, token: 't' });
    expect(await signedPost(challenge('a'), 'application/json', nowSec() + 120)).toMatchObject({
      status: 401,
    });
    // Clocks differ a little: a few seconds ahead is taken.
    expect(await signedPost(challenge('b'), 'application/json', nowSec() + 30)).toEqual({
      status: 200,
      body: JSON.stringify({ challenge: 'b' }),
    });
  });

  it('a body larger than any Slack payload is refused with 413, signed or not', async () => {
    const unsigned = await fetch(r.botUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'x'.repeat(3_900_000),
    });
    expect(unsigned.status).toBe(413);
    const event = JSON.stringify({ type: 'event_callback', padding: 'x'.repeat(300_000) });
    expect((await signedPost(event, 'application/json')).status).toBe(413);
    // The unread rest of a refused body holds up no later request.
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c', token: 't' });
    expect((await signedPost(challenge, 'application/json')).status).toBe(200);
  });

  it('a signed body that is not a JSON object gets 400, and the process carries on', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (const body of ['null', '1', '"x"', '[]']) {
        expect(await signedPost(body, 'application/json'), body).toEqual({ status: 400, body: '' });
      }
      const form = await signedPost('payload=null', 'application/x-www-form-urlencoded');
      expect(form.status).toBe(400);
      await sleep(100);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
    const health = await fetch(r.botUrl.replace('/slack/events', '/healthz'));
    expect(health.status).toBe(200);
    expect((await ask(r, 'help')).shown).toContain('/pay payout');
  });

  it('an id named after what every object inherits (toString, __proto__) gets 400, not a crash in Bolt', async () => {
    for (const id of ['toString', '__proto__', 'hasOwnProperty', 'prototype']) {
      const command = new URLSearchParams({
        command: '/pay',
        text: 'help',
        team_id: id,
        user_id: 'U0ALICE',
        channel_id: 'C0PAYOPS',
        response_url: 'https://hooks.slack.com/commands/x',
        trigger_id: 't',
      });
      const answer = await signedPost(command.toString(), 'application/x-www-form-urlencoded');
      expect(answer, id).toEqual({ status: 400, body: '' });
    }
    expect((await ask(r, 'help')).shown).toContain('/pay payout');
  });

  it('a body Bolt would take for a click, an options request or a form, without its user, gets 400, not a crash in Bolt', async () => {
    const forms = ['name', 'name=x&team_id=T0TEAM', 'payload=%7B%22actions%22%3A%5B%5D%7D'];
    const json = ['{"type":"block_suggestion"}', '{"type":"view_closed"}'];
    for (const body of forms) {
      const answer = await signedPost(body, 'application/x-www-form-urlencoded');
      expect(answer, body).toEqual({ status: 400, body: '' });
    }
    for (const body of json) {
      expect(await signedPost(body, 'application/json'), body).toEqual({ status: 400, body: '' });
    }
    expect((await ask(r, 'help')).shown).toContain('/pay payout');
  });

  it('an SSL check, unsigned, is still answered', async () => {
    const response = await sendExactly(r.botUrl, {
      body: 'ssl_check=1&token=t',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(200);
  });
});
