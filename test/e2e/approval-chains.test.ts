import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { ApproverShortageError } from '../../src/domain/policy.ts';
import { policyVersion } from '../../src/domain/policy-version.ts';
import { createLogger } from '../../src/logger.ts';
import { type Rehearsal, rehearsalEnv, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  SANDBOX_IDS,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import {
  DEFAULT_USER_GROUPS,
  type SlackEmulation,
  startSlackEmulation,
} from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { approvalMessageTs, ask, payoutsSent } from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const BIG = { ...PAYOUT, wallet_id: SANDBOX_IDS.wallet.solanaTreasury, amount: '10000.00' };
const CHAIN = `rules:
  - operations: [payout]
    currency: USDC
    min_amount: "10000"
    steps:
      - approvers: [S0TREASURY]
        max_amount: "50000"
      - approvers: [S0FINLEADS]
`;
/** Carol is in both groups: she may fill either step of a request, never both of one. */
const GROUPS = {
  ...DEFAULT_USER_GROUPS,
  S0TREASURY: { handle: 'treasury', name: 'Treasury', users: ['U0ALICE', 'U0BOB', 'U0CAROL'] },
  S0FINLEADS: { handle: 'finance-leads', name: 'Finance leads', users: ['U0CAROL', 'U0ERIN'] },
};

const folder = mkdtempSync(join(tmpdir(), 'payops-chains-e2e-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function policyFile(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const fieldsText = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ');

function click(r: Rehearsal, userId: string, ts: string) {
  return r.driver.blockAction({
    userId,
    actionId: ACTION.approve,
    message: { channel: APPROVALS, ts },
  });
}

async function told(r: Rehearsal, sent: { responseUrlId?: string | undefined }): Promise<string> {
  const post = await r.slack.nextResponse(sent.responseUrlId as string);
  return String((post.body as { text?: unknown }).text);
}

/** A payout of `amount` by `requesterId`, and its approval message. */
async function payoutRequested(r: Rehearsal, amount: string, requesterId: string) {
  const answer = await ask(r, `payout ${fieldsText({ ...BIG, amount })}`, { userId: requesterId });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  const ts = await approvalMessageTs(r, id, APPROVALS);
  return { id, ts };
}

/** A rehearsal under the policy `text` (written to file `name`), with the groups above. */
const startUnder = (name: string, text: string) =>
  startRehearsal({
    env: { PAYOPS_POLICY_FILE: policyFile(name, text), PAYOPS_APPROVERS: 'S0APPROVERS,U0ERIN' },
    slack: { rateLimits: 'off', userGroups: GROUPS },
  });

/** Runs `test` on a rehearsal of its own under the policy `text`, closed after it. */
async function underPolicy(name: string, text: string, test: (r: Rehearsal) => Promise<void>) {
  const r = await startUnder(name, text);
  try {
    await test(r);
  } finally {
    await r.close();
  }
}

/** The approval card as posted at `ts`. */
const postedCard = (r: Rehearsal, ts: string) =>
  JSON.stringify(
    r.slack
      .callsTo('chat.postMessage')
      .find((call) => (call.response as { ts?: string } | undefined)?.ts === ts)?.args,
  );

/** The last approval needed: the card shows request `id` submitted; it is read back. */
async function completingClick(r: Rehearsal, userId: string, ts: string, id: number) {
  const last = await click(r, userId, ts);
  expect(last.status).toBe(200);
  await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && /submitted/.test(String(call.args.text)),
    { timeoutMs: 8_000 },
  );
  const done = await r.bot.store.get(id);
  expect(done?.status).toBe('submitted');
  return { done, steps: done?.approvals.map(({ userId, step }) => ({ userId, step })) };
}

describe('an approval chain by group, end to end over signed Slack requests', () => {
  let r: Rehearsal;
  const policyText = CHAIN;

  beforeAll(async () => {
    r = await startUnder('chain.yaml', policyText);
  });
  afterAll(() => r.close());

  /** A payout of `amount` (each test its own, so none waits on another's as its twin). */
  const requested = (amount: string, requesterId = 'U0ALICE') =>
    payoutRequested(r, amount, requesterId);

  it('treasury then finance leads: wrong group and wrong order refused with the step waiting, one person one step, one call after the last step', async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await requested('10000.00');
    const stored = await r.bot.store.get(id);
    expect(stored?.requiredApprovals).toBe(2);
    expect(stored?.chain?.steps.map((step) => step.approvers)).toEqual([
      ['S0TREASURY'],
      ['S0FINLEADS'],
    ]);
    const card = postedCard(r, ts);
    expect(card).toContain('Step 1: 1 from <!subteam^S0TREASURY> (0 of 1, each up to 50000)');
    expect(card).toContain('Step 2: 1 from <!subteam^S0FINLEADS>');

    // Erin leads finance: her step is the second, and the first is waiting.
    const early = await click(r, 'U0ERIN', ts);
    expect(await told(r, early)).toBe(
      'This request waits for step 1 of 2, which only <!subteam^S0TREASURY> may approve: your approval was not counted. Its steps are approved in order, each by its own people, and one person counts for one step.',
    );

    // Carol, in both groups, fills the first step and cannot fill the second.
    const first = await click(r, 'U0CAROL', ts);
    expect(first.status).toBe(200);
    await told(r, first);
    const again = await click(r, 'U0CAROL', ts);
    expect(await told(r, again)).toMatch(/already approved/);
    // Bob is treasury only: the first step is done, so his approval fills nothing.
    const wrongGroup = await click(r, 'U0BOB', ts);
    expect(await told(r, wrongGroup)).toContain(
      'waits for step 2 of 2, which only <!subteam^S0FINLEADS> may approve',
    );
    expect(payoutsSent(r).length).toBe(before);

    const { done, steps } = await completingClick(r, 'U0ERIN', ts, id);
    expect(payoutsSent(r).length - before).toBe(1);
    expect(steps).toEqual([
      { userId: 'U0CAROL', step: 0 },
      { userId: 'U0ERIN', step: 1 },
    ]);

    // Each approval's audit row names the rule, its step and the policy version it satisfied.
    const version = policyVersion(loadConfig(r.env).approvals.policy);
    expect(done?.chain?.policyVersion).toBe(version);
    const approved = (await r.bot.store.history(id)).filter((row) => row.event === 'approved');
    expect(approved.map((row) => row.detail)).toEqual([
      expect.objectContaining({ rule: 0, step: 1, policyVersion: version }),
      expect.objectContaining({ rule: 0, step: 2, policyVersion: version }),
    ]);
    // And so does the audit CSV, and the request's detail.
    await ask(r, 'audit', { userId: 'U0BOB' });
    const csv = r.slack.files().at(-1)?.bytes?.toString('utf8') ?? '';
    const rows = csv.split('\r\n').filter((row) => row.includes(`,"${id}",`));
    expect(rows.filter((row) => row.includes('"approved"'))).toEqual([
      expect.stringContaining(
        `{""rule"":0,""step"":1,""required"":2,""approvals"":1,""policyVersion"":""${version}""}`,
      ),
      expect.stringContaining(
        `{""rule"":0,""step"":2,""required"":2,""approvals"":2,""policyVersion"":""${version}""}`,
      ),
    ]);
    const detail = (await ask(r, `request ${id}`, { userId: 'U0BOB' })).shown;
    expect(detail).toContain(`rules[0] of policy version ${version.slice(0, 12)}`);
    expect(detail).toContain(
      'Step 2: 1 from <!subteam^S0FINLEADS> (1 of 1) — approved by <@U0ERIN>',
    );
  });

  it('two clicks of one step at once: one fills it, the other is refused, nothing is sent', async () => {
    const before = payoutsSent(r).length;
    // Dave asks; alice and bob are treasury only: the second of them to be counted fills nothing.
    const { id, ts } = await requested('10001.00', 'U0DAVE');
    const clicks = await Promise.all([click(r, 'U0BOB', ts), click(r, 'U0ALICE', ts)]);
    expect(clicks.every((sent) => sent.status === 200)).toBe(true);
    const answers = await Promise.all(clicks.map((sent) => told(r, sent)));
    expect(answers.filter((text) => /waits for step 2 of 2/.test(text))).toHaveLength(1);
    const stored = await r.bot.store.get(id);
    expect(stored?.approvals.map((approval) => approval.step)).toEqual([0]);
    expect(stored?.status).toBe('pending');
    expect(payoutsSent(r).length).toBe(before);
  });

  it("past a step's cap (treasury's 50000), a request is refused with the reason when the rule says nothing (over_cap: refuse)", async () => {
    const before = (await r.bot.store.listPending(100)).total;
    const answer = await ask(r, `payout ${fieldsText({ ...BIG, amount: '60000.00' })}`, {
      userId: 'U0ALICE',
    });
    expect(answer.shown).toContain(
      "Not requested, nothing stored:* its amount, 60000.00 USDC, is over the 50000 USDC that step 1 of the policy's rules[0] may approve, and the policy refuses past it.",
    );
    expect((await r.bot.store.listPending(100)).total).toBe(before);
  });

  it('the Home lists a request only for the people of its open step', async () => {
    const { id } = await requested('10002.00');
    const queued = async (userId: string) =>
      (await r.bot.queries.homeRequests(userId, true, new Date())).queue?.requests.map(
        (request) => request.id,
      ) ?? [];
    expect(await queued('U0BOB')).toContain(id);
    expect(await queued('U0ERIN')).not.toContain(id);
  });
});

describe('a chain whose rule lets one person fill more than one step', () => {
  it('carol, in both groups, fills both steps, once each, and exactly one call is made', () =>
    underPolicy('same-person.yaml', `${CHAIN}    same_person_may_fill_steps: true\n`, async (r) => {
      const before = payoutsSent(r).length;
      const { id, ts } = await payoutRequested(r, BIG.amount as string, 'U0ALICE');
      expect((await r.bot.store.get(id))?.chain?.samePersonMayFillSteps).toBe(true);
      expect(postedCard(r, ts)).toContain('one person may fill more than one');

      const first = await click(r, 'U0CAROL', ts);
      expect(first.status).toBe(200);
      await told(r, first);
      expect(payoutsSent(r).length).toBe(before);
      // Bob is treasury only: the second step still waits for finance leads.
      const wrongGroup = await click(r, 'U0BOB', ts);
      expect(await told(r, wrongGroup)).toBe(
        'This request waits for step 2 of 2, which only <!subteam^S0FINLEADS> may approve: your approval was not counted. Its steps are approved in order, each by its own people, and one person counts at most once in each step.',
      );

      const { steps } = await completingClick(r, 'U0CAROL', ts, id);
      expect(payoutsSent(r).length - before).toBe(1);
      expect(steps).toEqual([
        { userId: 'U0CAROL', step: 0 },
        { userId: 'U0CAROL', step: 1 },
      ]);
    }));
});

describe('a chain whose rule says over_cap: next_step', () => {
  it("a payout over the first step's cap (60000 over 50000) needs only the second step: one approval, one call", () =>
    underPolicy('next-step.yaml', `${CHAIN}    over_cap: next_step\n`, async (r) => {
      const before = payoutsSent(r).length;
      const { id, ts } = await payoutRequested(r, '60000.00', 'U0ALICE');
      const stored = await r.bot.store.get(id);
      expect(stored?.requiredApprovals).toBe(1);
      expect(stored?.chain?.steps.map((step) => step.approvers)).toEqual([['S0FINLEADS']]);
      // Treasury's step is passed over: bob fills nothing.
      const bob = await click(r, 'U0BOB', ts);
      expect(await told(r, bob)).toContain(
        'waits for step 1 of 1, which only <!subteam^S0FINLEADS> may approve',
      );
      const { steps } = await completingClick(r, 'U0ERIN', ts, id);
      expect(steps).toEqual([{ userId: 'U0ERIN', step: 0 }]);
      expect(payoutsSent(r).length - before).toBe(1);
      // Within the cap, both steps as before.
      const within = await payoutRequested(r, '10003.00', 'U0ALICE');
      expect((await r.bot.store.get(within.id))?.requiredApprovals).toBe(2);
    }));
});

describe("an approver's own cap (approver_limits), by user and by group", () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startUnder(
      'caps.yaml',
      `rules:
  - operations: [payout]
    currency: USDC
    approvals: 1
    approver_limits: { U0BOB: "5000", S0TREASURY: "20000" }
`,
    );
  });
  afterAll(() => r.close());

  it("bob's cap (5000, below treasury's 20000) refuses his approval of 6000 with the reason; carol's group cap lets her", async () => {
    const before = payoutsSent(r).length;
    const { id, ts } = await payoutRequested(r, '6000.00', 'U0DAVE');

    const refused = await click(r, 'U0BOB', ts);
    expect(await told(r, refused)).toBe(
      "You may approve up to 5000 USDC (the policy's cap for <@U0BOB>), and this request is for 6000.00 USDC: your approval was not counted. An approver whose cap covers it must approve it.",
    );
    expect((await r.bot.store.get(id))?.approvals).toEqual([]);
    expect(payoutsSent(r).length).toBe(before);

    const { steps } = await completingClick(r, 'U0CAROL', ts, id);
    expect(steps).toEqual([{ userId: 'U0CAROL', step: undefined }]);
    expect(payoutsSent(r).length - before).toBe(1);
  });

  it("a group's cap: carol, in treasury, may not approve 25000", async () => {
    const { id, ts } = await payoutRequested(r, '25000.00', 'U0DAVE');
    const refused = await click(r, 'U0CAROL', ts);
    expect(await told(r, refused)).toContain(
      "You may approve up to 20000 USDC (the policy's cap for <!subteam^S0TREASURY>), and this request is for 25000.00 USDC",
    );
    expect((await r.bot.store.get(id))?.approvals).toEqual([]);
  });
});

describe('start-up with a chain that cannot be filled', () => {
  let sandbox: PaymentsSandbox;
  let slack: SlackEmulation;

  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
    slack = await startSlackEmulation({ rateLimits: 'off', userGroups: GROUPS });
  });
  afterAll(() => Promise.all([sandbox.close(), slack.close()]));

  it('refuses to start and names the rule and the step', async () => {
    const env = {
      ...rehearsalEnv(sandbox, slack),
      PAYOPS_POLICY_FILE: policyFile(
        'short.yaml',
        CHAIN.replace('[S0FINLEADS]', '[S0FINLEADS]\n        approvals: 3'),
      ),
    };
    const refused = await startBot(
      loadConfig(env),
      createLogger({ level: 'silent', secrets: [] }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApproverShortageError);
    expect((refused as Error).message).toBe(
      "payops refused to start: the policy's rules[0]: step 2 (S0FINLEADS) needs 3 approvals but has 2 people. Add people to the step's groups or users, or lower its approvals in PAYOPS_POLICY_FILE.",
    );
  });
});
