import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Signer } from '../../src/domain/signer.ts';
import { type Rehearsal, startRehearsal } from '../../src/sandbox/rehearsal.ts';
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

/** `/pay payout …` as alice; its approval message as first posted. */
async function card(fields: Record<string, string>): Promise<{ ts: string; text: string }> {
  const answer = await ask(r, payoutCommand(fields));
  const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
  const ts = await approvalMessageTs(r, id);
  const posted = r.slack.calls.find(
    (call) => call.response && 'ts' in call.response && call.response.ts === ts,
  );
  return { ts, text: JSON.stringify(posted?.args.blocks) };
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
