import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Signer } from '../../src/domain/signer.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import { approvalMessageTs, ask } from '../helpers/slack.ts';

/**
 * Issue 27, point 6: approvers tell payees apart. Two accounts sharing their last four digits
 * show different tags; a destination never paid is a new payee; a name paid before at another
 * destination is flagged as changed details.
 */

const PAYOUT = {
  ...(EXAMPLE_CALLS.createPayout.body as Record<string, string>),
  amount: '12.00',
  beneficiary_account: '111111116789',
};

let r: Rehearsal;
beforeAll(async () => {
  r = await startRehearsal({ slack: { rateLimits: 'off' } });
});
afterAll(() => r.close());

/** `/pay payout …` (or `command`) as alice; its number and its approval message as first posted. */
async function card(
  fields: Record<string, string>,
  command = payoutCommand(fields),
): Promise<{ id: number; ts: string; text: string }> {
  const answer = await ask(r, command);
  const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
  const ts = await approvalMessageTs(r, id);
  const posted = r.slack.calls.find(
    (call) => call.response && 'ts' in call.response && call.response.ts === ts,
  );
  return { id, ts, text: JSON.stringify(posted?.args.blocks) };
}

function tagIn(text: string): string | undefined {
  return /Payee tag:\* `([0-9A-Z]{4}-[0-9A-Z]{4})`/.exec(text)?.[1];
}

describe('telling payees apart', () => {
  it('tags differ where the last four digits agree; a new payee is flagged until paid; a name paid elsewhere is flagged', async () => {
    const first = await card(PAYOUT);
    const lookalike = await card({
      ...PAYOUT,
      beneficiary_name: 'J. Roe',
      beneficiary_account: '999999996789',
    });
    expect(first.text).toContain('••••6789');
    expect(lookalike.text).toContain('••••6789');
    expect(tagIn(first.text)).toBeDefined();
    expect(tagIn(lookalike.text)).not.toBe(tagIn(first.text));
    expect(first.text).toContain('New payee');

    await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      message: { channel: 'C0APPROVALS', ts: first.ts },
    });
    await r.slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === first.ts && /submitted/.test(String(call.args.text)),
    );

    const again = await card({ ...PAYOUT, amount: '13.00' });
    expect(tagIn(again.text)).toBe(tagIn(first.text));
    expect(again.text).not.toContain('New payee');
    expect(again.text).not.toContain('Changed details');

    const moved = await card({ ...PAYOUT, beneficiary_account: '222222224444' });
    expect(moved.text).toContain('New payee');
    expect(moved.text).toContain('Changed details');
    expect(moved.text).toContain(tagIn(first.text));
  });

  it('a tag is stable for one deployment, different for another, and not the account', () => {
    const ours = new Signer(Buffer.alloc(32, 1));
    const theirs = new Signer(Buffer.alloc(32, 2));
    const account = 'account:021000021/111111116789';
    expect(ours.payeeTag(account)).toBe(ours.payeeTag('account:021000021/1111-1111-6789'));
    expect(ours.payeeTag(account)).not.toBe(ours.payeeTag('account:021000021/999999996789'));
    expect(ours.payeeTag(account)).not.toBe(theirs.payeeTag(account));
    expect(ours.payeeTag(account)).not.toMatch(/6789/);
  });
});

/** `/pay transfer …` of `amount` to the sandbox's US supplier, account 000123456789. */
function transferCommand(amount: string): string {
  return `transfer ${Object.entries({ ...EXAMPLE_CALLS.createTransfer.body, amount })
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
}

describe('the same payment, however it is spelt, waits while an earlier one may have paid', () => {
  const sent = (operationId: string) =>
    r.sandbox.requests.filter((entry) => entry.operationId === operationId).length;

  afterAll(() => r.sandbox.clearFaults());

  it('spaced, dashed or dotted, to another name, or as a transfer to its recipient: held, and the sandbox got one payout', async () => {
    const payout = { ...PAYOUT, amount: '31.40', beneficiary_account: '000123456789' };
    const before = { payouts: sent('createPayout'), transfers: sent('createTransfer') };
    const first = await card(payout);
    // Asked before the first went out: pending, its approval is what must be held.
    const renamed = await card({
      ...payout,
      beneficiary_name: 'J. Roe',
      beneficiary_account: '0001 2345 6789',
    });

    // A 500 after sending (it may have executed), and a list that cannot be read to check.
    r.sandbox.addFault({ kind: 'status', operationId: 'createPayout', status: 500, times: 1 });
    r.sandbox.addFault({ kind: 'status', operationId: 'listPayouts', status: 503 });
    await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      message: { channel: 'C0APPROVALS', ts: first.ts },
    });
    await vi.waitFor(
      async () => expect((await r.bot.store.get(first.id))?.status).toBe('unknown'),
      { timeout: 8_000 },
    );

    for (const account of ['0001 2345 6789', '000-123-456-789', '123.456.789']) {
      const answer = await ask(r, payoutCommand({ ...payout, beneficiary_account: account }));
      expect(answer.shown, account).toContain(`Not requested: request #${first.id}`);
    }
    expect((await ask(r, transferCommand('31.40'))).shown).toContain(
      `Not requested: request #${first.id}`,
    );

    const click = await r.driver.blockAction({
      userId: 'U0CAROL',
      actionId: ACTION.approve,
      message: { channel: 'C0APPROVALS', ts: renamed.ts },
    });
    const told = await r.slack.nextResponse(click.responseUrlId as string);
    expect(JSON.stringify(told.body)).toContain(
      `Your approval of #${renamed.id} was not counted (it stays pending): request #${first.id} is for the same write or the same payment`,
    );
    expect((await r.bot.store.get(renamed.id))?.status).toBe('pending');

    expect(sent('createPayout') - before.payouts).toBe(1);
    expect(sent('createTransfer') - before.transfers).toBe(0);
  });
});

describe('a recipient whose account cannot be read', () => {
  it('is requested all the same, tagged by its id, and the card says so', async () => {
    r.sandbox.addFault({ kind: 'status', operationId: 'getRecipient', status: 503 });
    try {
      const transfer = await card({}, transferCommand('12.34'));
      expect(transfer.id).toBeGreaterThan(0);
      expect(tagIn(transfer.text)).toBeDefined();
      expect(transfer.text).toContain("The recipient's account could not be read");
    } finally {
      r.sandbox.clearFaults();
    }
  });
});
