import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import { approvalMessageTs } from '../helpers/slack.ts';

/**
 * A deployment that renames its command (`PAYOPS_COMMAND`) is told to type that name on every
 * surface: the core flows run under `/payments`, and nothing payops sends names `/pay`.
 */

const COMMAND = '/payments';
const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
/** `/pay` as a word of its own: `/payments` and `/payouts` are other words. */
const OLD_NAME = /\/pay(?![\w-])/;

let r: Rehearsal;

beforeAll(async () => {
  r = await startRehearsal({ env: { PAYOPS_COMMAND: COMMAND } });
});
afterAll(() => r.close());

/** `/payments <text>` as `userId`; what its answer shows. */
async function ask(text: string, userId = 'U0ALICE'): Promise<string> {
  const sent = await r.driver.slashCommand({
    command: COMMAND,
    text,
    userId,
    channelId: 'C0PAYOPS',
  });
  expect(sent.status).toBe(200);
  return JSON.stringify(
    (await r.slack.nextResponse(sent.responseUrlId, { timeoutMs: 8_000 })).body,
  );
}

/** A click on an approval message, as `userId`. */
async function click(actionId: string, userId: string, ts: string): Promise<void> {
  const sent = await r.driver.blockAction({
    userId,
    actionId,
    message: { channel: APPROVALS, ts },
  });
  expect(sent.status).toBe(200);
}

/** The approval message once its fallback text matches `pattern`. */
async function cardMatching(ts: string, pattern: RegExp): Promise<string> {
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && pattern.test(String(call.args.text)),
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(update.args);
}

/** Every place payops named the old command: the Web API call or response_url post, and the text. */
function oldNameSightings(): string[] {
  const sent = [
    ...r.slack.calls.map((call) => ({ where: call.method, what: JSON.stringify(call.args) })),
    ...r.slack.responses.map((post) => ({
      where: 'response_url',
      what: JSON.stringify(post.body),
    })),
  ];
  const seen = new Set<string>();
  for (const { where, what } of sent) {
    for (const match of what.matchAll(new RegExp(OLD_NAME, 'g'))) {
      const at = match.index ?? 0;
      seen.add(`${where}: …${what.slice(Math.max(0, at - 80), at + 40)}…`.replace(/\d+/g, 'N'));
    }
  }
  return [...seen];
}

/** As Slack sends it when `userId` opens payops's Home tab. */
function openHome(userId: string) {
  return r.driver.event({
    event: { type: 'app_home_opened', user: userId, channel: `D${userId.slice(1)}`, tab: 'home' },
  });
}

describe(`the core flows under ${COMMAND}`, () => {
  it('help, reads and mistakes name the configured command', async () => {
    const help = await ask('help');
    expect(help).toContain(`${COMMAND} wallets`);
    expect(help).toContain(`${COMMAND} requests`);
    expect(help).toContain(`${COMMAND} payout`);
    expect(await ask('wallets')).toContain(SANDBOX_IDS.wallet.ethereumOps);
    expect(await ask('balance')).toContain(SANDBOX_IDS.wallet.ethereumOps);
    expect(await ask('wallets --bogus')).toContain(`${COMMAND} wallets`);
    expect(await ask('walets')).toContain(`${COMMAND} wallets`);
    expect(await ask('balance')).not.toMatch(OLD_NAME);
    expect(await ask('payout 10.00 EUR to dave')).toContain(`${COMMAND} payout`);
    expect(await ask('request')).toContain(`${COMMAND} request 12`);
    expect(await ask('resolve 1')).toContain(`${COMMAND} resolve 12`);
  });

  it('refusals: someone with no role is told so, naming nobody, whatever they type', async () => {
    for (const text of ['help', 'wallets', payoutCommand(PAYOUT), 'payout', 'requests']) {
      const answer = await ask(text, 'U0ERIN');
      expect(answer).toContain('not on the list of people who may use payops');
      expect(answer).not.toMatch(/<@U0/);
    }
    expect(await ask('requests', 'U0DAVE')).toContain('you are not an approver');
  });

  it('a payout requested, frozen, approved and executed: card, thread and answers', async () => {
    const requested = await ask(payoutCommand(PAYOUT));
    const id = Number(/Request #(\d+)/.exec(requested)?.[1]);
    expect(id).toBeGreaterThan(0);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    expect(await ask(`request ${id}`, 'U0BOB')).toContain(`#${id}`);
    expect(await ask('requests', 'U0BOB')).toContain(`#${id}`);

    expect(await ask('freeze drill', 'U0BOB')).toContain(`${COMMAND} unfreeze`);
    await click(ACTION.approve, 'U0BOB', ts);
    await r.slack.waitFor(() =>
      r.slack.responses.some((post) => JSON.stringify(post.body).includes('frozen')),
    );
    expect(await ask('unfreeze', 'U0BOB')).toContain('unfrozen');

    await click(ACTION.approve, 'U0BOB', ts);
    await cardMatching(ts, /submitted|succeeded|executed/);
    expect(await ask(`request ${id}`, 'U0BOB')).toContain(`#${id}`);
  });

  it('a second payout: the Home tab and a reject', async () => {
    const first = await ask(payoutCommand({ ...PAYOUT, amount: '11.00' }));
    const id = Number(/Request #(\d+)/.exec(first)?.[1]);
    expect(id).toBeGreaterThan(0);
    await openHome('U0BOB');
    await r.slack.waitFor(() => r.slack.homeView('U0BOB'), { timeoutMs: 8_000 });
    const ts = await approvalMessageTs(r, id, APPROVALS);
    await click(ACTION.reject, 'U0CAROL', ts);
  });

  it(`nothing payops sent names the old command`, () => {
    expect(r.slack.calls.length + r.slack.responses.length).toBeGreaterThan(20);
    expect(oldNameSightings()).toEqual([]);
  });
});
