import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { ApproverShortageError } from '../../src/domain/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { type Rehearsal, rehearsalEnv, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const folder = mkdtempSync(join(tmpdir(), 'payops-policy-e2e-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function policyFile(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

/** `/pay payout …` as alice to `account`; the request's number and its card as first posted. */
function payout(r: Rehearsal, amount: string, account: string) {
  return requested(r, 'payout', {
    ...PAYOUT,
    amount,
    beneficiary_account: account,
    beneficiary_name: 'Jane',
  });
}

/** `/pay <word> …` with `fields` as `userId`; the request's number and its card as first posted. */
async function requested(
  r: Rehearsal,
  word: string,
  fields: Record<string, string>,
  userId = 'U0ALICE',
) {
  const text = Object.entries(fields)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const answer = await ask(r, `${word} ${text}`, { userId });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  const ts = await approvalMessageTs(r, id);
  const card = r.slack
    .callsTo('chat.postMessage')
    .find((call) => (call.response as { ts?: string } | undefined)?.ts === ts);
  const stored = await r.bot.store.get(id);
  return { id, needs: stored?.requiredApprovals, card: JSON.stringify(card?.args) };
}

describe('a policy window, end to end: one payment split under a threshold', () => {
  let r: Rehearsal;

  beforeAll(async () => {
    const policy = policyFile(
      'window.yaml',
      'rules:\n  - operations: [payout, transfer]\n    currency: [USD, USDC]\n    min_amount: "10000"\n    window: 24h\n    approvals: 2\n',
    );
    r = await startRehearsal({ env: { PAYOPS_POLICY_FILE: policy }, slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());

  it("the requester's payouts to one account in the window add up, and the card says so", async () => {
    const first = await payout(r, '6000.00', '000111222333');
    expect(first.needs).toBe(1);
    expect(first.card).not.toContain('Adds up');

    // Another account is another payee: not counted.
    expect((await payout(r, '5000', '000999888777')).needs).toBe(1);

    const second = await payout(r, '4000', '000111222333');
    expect(second.needs).toBe(2);
    expect(second.card).toContain(
      ':warning: *Adds up:* with 1 earlier request from the same requester to this payee in the last 24h, the total 10000.00 USD/USDC reaches 10000, which raised the approvals needed.',
    );
    expect((await r.bot.store.get(second.id))?.labels?.windowRaised).toEqual({
      window: '24h',
      total: '10000.00',
      currencies: ['USD', 'USDC'],
      threshold: '10000',
      requests: 1,
    });
  });

  it('two parts sent at the same moment count each other: one of them needs two approvals', async () => {
    const parts = await Promise.all([
      payout(r, '6000', '000777666555'),
      payout(r, '4000', '000777666555'),
    ]);
    expect(parts.map((part) => part.needs).sort()).toEqual([1, 2]);
  });

  it('a cancelled request no longer counts', async () => {
    const first = await payout(r, '6000', '000444555666');
    expect((await r.bot.workflow.cancel(first.id, 'U0ALICE')).kind).toBe('done');
    expect((await payout(r, '4000', '000444555666')).needs).toBe(1);
  });

  it('an account and routing number with or without leading zeros are one payee', async () => {
    const jane = { ...PAYOUT, beneficiary_name: 'Jane', beneficiary_routing: '021000021' };
    const first = { ...jane, amount: '6000', beneficiary_account: '123456789' };
    expect((await requested(r, 'payout', first)).needs).toBe(1);
    const second = {
      ...jane,
      amount: '4000',
      beneficiary_account: '000123456789',
      beneficiary_routing: '21000021',
    };
    const counted = await requested(r, 'payout', second);
    expect(counted.needs).toBe(2);
    expect(counted.card).toContain('with 1 earlier request from the same requester to this payee');
  });

  it("a transfer to a recipient is counted with payouts to the recipient's account", async () => {
    // The sandbox's US supplier is account 000123456789 at routing 021000021; dave's own window.
    const paid = {
      ...PAYOUT,
      amount: '6000',
      beneficiary_name: 'Northwind',
      beneficiary_account: '000-123-456-789',
    };
    expect((await requested(r, 'payout', paid, 'U0DAVE')).needs).toBe(1);
    const transfer = { ...(EXAMPLE_CALLS.createTransfer.body as Record<string, string>) };
    const counted = await requested(r, 'transfer', { ...transfer, amount: '4000' }, 'U0DAVE');
    expect(counted.needs).toBe(2);
    expect(counted.card).not.toContain('account could not be read');
  });
});

describe('at start-up, a policy the approvers cannot meet', () => {
  const logger = createLogger({ level: 'silent', secrets: [] });
  const threeForPayouts = policyFile(
    'three.yaml',
    'rules:\n  - operations: [payout]\n    approvals: 3\n',
  );
  let sandbox: PaymentsSandbox;
  let slack: SlackEmulation;
  beforeAll(async () => {
    [sandbox, slack] = await Promise.all([
      startPaymentsSandbox(),
      startSlackEmulation({ rateLimits: 'off' }),
    ]);
  });
  afterAll(() => Promise.all([sandbox.close(), slack.close()]));

  const start = (env: Record<string, string>) =>
    startBot(
      loadConfig({
        ...rehearsalEnv(sandbox, slack),
        PAYOPS_POLICY_FILE: threeForPayouts,
        ...env,
      }),
      logger,
    );

  it('is refused, naming the rule and the count (alice approves, so her requests have two)', async () => {
    // S0APPROVERS is alice, bob and carol; alice also requests, and cannot approve her own.
    const refused = await start({}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApproverShortageError);
    expect((refused as Error).message).toBe(
      "payops refused to start: the policy's rules[0] needs 3 approvals from distinct people, but PAYOPS_APPROVERS can supply 2 (3 approvers, one fewer on a request made by an approver, who cannot approve their own). Add approvers to PAYOPS_APPROVERS, or lower the rule in PAYOPS_POLICY_FILE.",
    );
  });

  it('starts when no approver requests: all three can approve', async () => {
    const bot = await start({ PAYOPS_REQUESTERS: 'U0DAVE' });
    await bot.stop();
  });
});
