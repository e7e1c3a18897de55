import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS, SANDBOX_KEY } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { clientFor, EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import { ask, requestPayout } from '../helpers/slack.ts';

/**
 * Issue 27, points 8 and 14, end to end: the approval message shows each value as it is sent,
 * look-alikes are refused before anything is stored, and no text payops shows or exports
 * carries a secret or an account number, whoever wrote it. Issue 33, §4 and §3.3: what the
 * card, its thread and answers say, in the words and formats of what payops knows.
 */

const APPROVALS = 'C0APPROVALS';
const ACCOUNT = '000123456789';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

let r: Rehearsal;

beforeAll(async () => {
  r = await startRehearsal({ slack: { rateLimits: 'off' } });
});
afterAll(() => r.close());
afterEach(() => r.sandbox.clearFaults());

async function cardWhere(ts: string, pattern: RegExp): Promise<string> {
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && pattern.test(String(call.args.text)),
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(update.args);
}

async function threadNotice(ts: string, pattern: RegExp): Promise<string> {
  const notice = await r.slack.waitForCall(
    'chat.postMessage',
    (call) => call.args.thread_ts === ts && pattern.test(String(call.args.text)),
    { timeoutMs: 8_000 },
  );
  return String(notice.args.text);
}

/** Every byte payops sent to Slack so far: Web API calls, response_url posts, uploaded files. */
function everythingSentToSlack(): string {
  return [
    JSON.stringify(r.slack.calls.map((call) => call.args)),
    JSON.stringify(r.slack.responses.map((post) => post.body)),
    ...r.slack.files().map((file) => file.bytes?.toString('utf8') ?? ''),
  ].join('\n');
}

describe('point 8: what is shown is what is sent', () => {
  it('a value with mrkdwn marks, an emoji code and a backtick reads on the card exactly as typed', async () => {
    const name = '*Jane* _Roe_ ~Mallory~ :x: `q`';
    const { ts } = await requestPayout(r, { ...PAYOUT, beneficiary_name: name });
    const card = r.slack.calls.find(
      (call) => call.response && 'ts' in call.response && call.response.ts === ts,
    );
    const blocks = (card?.args.blocks ?? []) as Array<{ fields?: unknown[] }>;
    const fields = blocks.flatMap((block) => block.fields ?? []);
    expect(fields).toContainEqual({ type: 'plain_text', text: name, emoji: false });
  });

  it('a name mixing Latin and Cyrillic look-alikes is refused, naming the field, and nothing is stored', async () => {
    const cards = r.slack.callsTo('chat.postMessage').length;
    const answer = await ask(r, payoutCommand({ ...PAYOUT, beneficiary_name: 'Jane Rое' }));
    expect(answer.shown).toContain('beneficiary_name: mixes Latin and Cyrillic letters');
    expect(answer.shown).not.toMatch(/Request #\d+/);
    expect(r.slack.callsTo('chat.postMessage')).toHaveLength(cards);
  });
});

describe('point 14: one scrubber for every text payops shows', () => {
  it('a provider refusal that echoes the API key never reaches Slack, on a write or a read', async () => {
    const echo = `invalid beneficiary for key ${SANDBOX_KEY.full}, account ${ACCOUNT}`;
    r.sandbox.addFault({ kind: 'status', status: 422, operationId: 'createPayout', message: echo });
    const { ts } = await requestPayout(r, PAYOUT);
    await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      message: { channel: APPROVALS, ts },
    });
    const card = await cardWhere(ts, /refused by the provider/);
    expect(card).toContain('invalid beneficiary for key [redacted], account ••••6789');
    expect(await threadNotice(ts, /provider refused it/)).toContain('[redacted]');

    r.sandbox.addFault({
      kind: 'status',
      status: 400,
      operationId: 'getWalletBalance',
      message: echo,
    });
    const read = await ask(r, `balance ${SANDBOX_IDS.wallet.ethereumOps}`);
    expect(read.shown).toContain('[redacted]');

    const sent = everythingSentToSlack();
    expect(sent).toContain('[redacted]');
    for (const secret of [SANDBOX_KEY.full, ACCOUNT, r.slack.config.botToken]) {
      expect(sent).not.toContain(secret);
    }
  });

  it('a reject reason quoting an account number is masked on the card, in the thread, in the CSV and in the store', async () => {
    const { id, ts } = await requestPayout(r, { ...PAYOUT, amount: '3.00' });
    await r.driver.blockAction({
      userId: 'U0CAROL',
      actionId: ACTION.reject,
      message: { channel: APPROVALS, ts },
    });
    const form = await r.slack.waitForCall('views.update', (call) =>
      JSON.stringify(call.args).includes(VIEW.rejectReason),
    );
    await r.driver.viewSubmission({
      userId: 'U0CAROL',
      view: {
        id: String(form.args.view_id),
        state: {
          values: {
            reason: { reason: { type: 'plain_text_input', value: `wrong account ${ACCOUNT}` } },
          },
        },
      },
    });
    expect(await cardWhere(ts, /rejected/)).toContain('wrong account ••••6789');
    expect(await threadNotice(ts, /rejected/)).toContain('wrong account ••••6789');
    // Stored masked too: banking details have no business in the database or its backups.
    expect((await r.bot.store.get(id))?.reason).toBe('wrong account ••••6789');

    await ask(r, 'audit', { userId: 'U0BOB' });
    const csv = r.slack.files().at(-1)?.bytes?.toString('utf8') ?? '';
    expect(csv).toContain('wrong account ••••6789');
    expect(everythingSentToSlack()).not.toContain(ACCOUNT);
  });
});

async function approveAsBob(ts: string): Promise<void> {
  const click = await r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: APPROVALS, ts },
  });
  expect(click.status).toBe(200);
}

/** The card as Slack now shows it, once `pattern` matches its text, as JSON. */
async function cardWhen(ts: string, pattern: RegExp): Promise<string> {
  return r.slack.waitFor(
    () => {
      const card = JSON.stringify(r.slack.message(APPROVALS, ts) ?? {});
      return pattern.test(card) && card;
    },
    { timeoutMs: 8_000, description: `the card showing ${pattern}` },
  );
}

/** The card's thread, once a notice in it matches `pattern`: every notice's text. */
async function threadWhen(ts: string, pattern: RegExp): Promise<string[]> {
  return r.slack.waitFor(
    () => {
      const notices = r.slack
        .channel(APPROVALS)
        .messages.filter((message) => message.thread_ts === ts)
        .map((message) => String(message.text));
      return notices.some((text) => pattern.test(text)) && notices;
    },
    { timeoutMs: 8_000, description: `a thread notice matching ${pattern}` },
  );
}

describe('§4: the masker masks banking numbers, not identifiers holding digits', () => {
  it("a provider's refusal quoting its request id and an account: the id whole, the account masked", async () => {
    r.sandbox.addFault({
      kind: 'status',
      status: 422,
      operationId: 'createPayout',
      message:
        'beneficiary refused (trace req_9922369a3db4dbec, uuid 123e4567-e89b-12d3-a456-426614174000) for account 0001 2345 6789',
    });
    const { ts } = await requestPayout(r, { ...PAYOUT, amount: '11.00' });
    await approveAsBob(ts);
    const card = await cardWhen(ts, /HTTP 422/);
    const thread = (await threadWhen(ts, /422/)).join('\n');
    for (const shown of [card, thread]) {
      expect(shown).toContain('trace req_9922369a3db4dbec');
      expect(shown).toContain('uuid 123e4567-e89b-12d3-a456-426614174000');
      expect(shown).toContain('account ••••6789');
      expect(shown).not.toContain('••••2369');
      expect(shown).not.toContain('0001 2345 6789');
    }
  });
});

describe('§3.3: a name mixing scripts word by word is accepted, with a warning', () => {
  it('a payout to "Ελένη Smith" is requested, and its card names the scripts to check', async () => {
    const { ts } = await requestPayout(r, {
      ...PAYOUT,
      amount: '12.00',
      beneficiary_name: 'Ελένη Smith',
    });
    const card = JSON.stringify(r.slack.message(APPROVALS, ts));
    expect(card).toContain(
      '*Beneficiary:* mixes scripts: Greek, Latin — check for look-alike letters before approving.',
    );
    expect(card).toContain('"text":"Ελένη Smith"');
  });
});

/** Doubled punctuation where a sentence joins quoted text: `sent..`, `there.:`. */
const DOUBLED_PUNCTUATION = /[.!?:][.:](?!\.)/;

describe('§4: a write payops stops before the call is told as stopped, never as refused or sent', () => {
  it('the balance re-check: the wallet was drained between request and approval', async () => {
    const wallet = SANDBOX_IDS.wallet.polygonPetty;
    const { id, ts } = await requestPayout(r, { ...PAYOUT, wallet_id: wallet, amount: '40.00' });
    // Another payout from the same wallet, straight at the provider: 42.75 USDC become 37.75.
    const provider = clientFor(r.sandbox.url);
    await provider.call('createPayout', { body: { ...PAYOUT, wallet_id: wallet, amount: '5.00' } });
    await provider.close();
    const payoutCalls = () =>
      r.sandbox.requests.filter((call) => call.operationId === 'createPayout').length;
    const callsBefore = payoutCalls();
    await approveAsBob(ts);
    const card = await cardWhen(ts, /nothing was/);
    const thread = await threadWhen(ts, /nothing was/);
    const stored = await r.bot.store.get(id);
    expect(stored?.status).toBe('failed');
    expect(payoutCalls()).toBe(callsBefore);
    expect(card).toContain('*payops stopped it before sending: nothing was sent.*');
    expect(thread.at(-1)).toContain('payops stopped it before sending, so nothing was sent');
    for (const shown of [card, ...thread]) {
      expect(shown).not.toMatch(/provider refused|refused by the provider/);
      expect(shown).not.toMatch(/\bsent <!date/);
      expect(shown).not.toMatch(DOUBLED_PUNCTUATION);
    }
  });
});

describe('§4: amounts read one way everywhere', () => {
  it('what was requested reads as typed; what payops read from the provider has grouped thousands and its own decimals', async () => {
    const { id, ts } = await requestPayout(r, { ...PAYOUT, amount: '1250.5' });
    const card = JSON.stringify(r.slack.message(APPROVALS, ts));
    expect(card).toContain(`#${id} · Create a payout · 1250.5 USDC`);
    expect(card).toContain('{"type":"plain_text","text":"1250.5 USDC","emoji":false}');
    const balance = await ask(r, `balance ${SANDBOX_IDS.wallet.ethereumOps}`);
    expect(balance.shown).toContain('1,250.50 USDC');
    expect(balance.shown).not.toContain('1250.50');
  });
});
