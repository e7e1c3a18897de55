import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import type { JsonObject } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import {
  approvalMessageTs,
  ask,
  formOpened,
  payoutsSent,
  requestFormValues,
} from '../helpers/slack.ts';

/**
 * An approver's question and the requester's edit and resubmit, end to end through signed Slack
 * requests, the Payments sandbox and the Slack emulation.
 */

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const ACCOUNT = PAYOUT.beneficiary_account as string;

function payoutText(fields: Record<string, string>): string {
  return `payout ${Object.entries(fields)
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ')}`;
}

function click(r: Rehearsal, actionId: string, userId: string, ts: string, value: string) {
  return r.driver.blockAction({ userId, actionId, value, message: { channel: APPROVALS, ts } });
}

/** The approval message `ts` once a redraw shows `pattern`. */
async function cardShowing(r: Rehearsal, ts: string, pattern: RegExp) {
  const update = await r.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && pattern.test(JSON.stringify(call.args)),
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(update.args);
}

function openHome(r: Rehearsal, userId: string) {
  return r.driver.event({
    event: { type: 'app_home_opened', user: userId, channel: `D${userId.slice(1)}`, tab: 'home' },
  });
}

function homeShowing(r: Rehearsal, userId: string, pattern: RegExp) {
  return r.slack.waitFor(
    () => {
      const view = r.slack.homeView(userId) as JsonObject | undefined;
      return view !== undefined && pattern.test(JSON.stringify(view)) && JSON.stringify(view);
    },
    { timeoutMs: 8_000 },
  );
}

describe('asking the requester, and editing and resubmitting', () => {
  let r: Rehearsal;
  const policyFile = join(tmpdir(), `payops-questions-policy-${process.pid}.yml`);

  beforeAll(async () => {
    writeFileSync(policyFile, 'default_approvals: 2\n');
    r = await startRehearsal({
      env: { PAYOPS_POLICY_FILE: policyFile },
      slack: { rateLimits: 'off' },
      bot: { sweepIntervalMs: 100 },
    });
  });
  afterAll(() => r.close());

  it('a question goes to the thread and leaves the request pending, waiting on its requester; the edit replaces it, approved from zero, and only the new one is sent', async () => {
    const sentBefore = payoutsSent(r).length;
    const answer = await ask(
      r,
      payoutText({ ...PAYOUT, amount: '25.50', purpose: 'Invoice 2291' }),
    );
    const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    const old = await r.bot.store.get(id);
    expect(await click(r, ACTION.approve, 'U0BOB', ts, `${id}:${old?.fingerprint}`)).toMatchObject({
      status: 200,
    });
    await cardShowing(r, ts, /1 of 2 approvals/);

    // Carol asks instead of rejecting: a form, then the question in the thread.
    const before = r.slack.callsTo('views.update').length;
    await click(r, ACTION.ask, 'U0CAROL', ts, String(id));
    const askForm = await formOpened(r, VIEW.askQuestion, before);
    await r.driver.viewSubmission({
      userId: 'U0CAROL',
      view: {
        id: askForm.id,
        state: {
          values: {
            question: {
              question: { type: 'plain_text_input', value: 'Is 25.50 the whole invoice?' },
            },
          },
        },
      },
    });
    const notice = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === ts && String(call.args.text).includes('asks about'),
      { timeoutMs: 8_000 },
    );
    expect(String(notice.args.text)).toContain('<@U0ALICE> <@U0CAROL> asks about');
    expect(String(notice.args.text)).toContain('Is 25.50 the whole invoice?');
    expect(JSON.stringify(notice.args.blocks)).toContain(ACTION.resubmit);
    expect((await r.bot.store.get(id))?.status).toBe('pending');
    expect(await cardShowing(r, ts, /Waiting on the requester/)).toContain(ACTION.approve);
    const history = await r.bot.store.history(id);
    expect(history.map((entry) => entry.event)).toContain('question_asked');

    // Both Homes say it waits on the requester: an approver's queue, the requester's own list.
    await openHome(r, 'U0CAROL');
    await openHome(r, 'U0ALICE');
    await homeShowing(r, 'U0CAROL', /Waiting on the requester/);
    await homeShowing(r, 'U0ALICE', /Waiting on the requester/);

    // Another requester's click on Edit and resubmit is refused.
    const noticeTs = (notice.response as unknown as { ts: string }).ts;
    const daveBefore = r.slack.callsTo('views.update').length;
    await click(r, ACTION.resubmit, 'U0DAVE', noticeTs, String(id));
    const refused = await r.slack.waitForCall(
      'views.update',
      (call) =>
        r.slack.callsTo('views.update').indexOf(call) >= daveBefore &&
        JSON.stringify(call.args).includes('Only the person who requested'),
    );
    expect(JSON.stringify(refused.args)).not.toContain(VIEW.request);

    // Alice edits: the form comes filled in as her request was.
    const aliceBefore = r.slack.callsTo('views.update').length;
    await click(r, ACTION.resubmit, 'U0ALICE', noticeTs, String(id));
    const editForm = await formOpened(r, VIEW.request, aliceBefore);
    expect(editForm.shown).toContain('"initial_value":"25.50"');
    expect(editForm.shown).toContain('"initial_value":"Invoice 2291"');
    // A banking number is never sent to Slack in full: the form asks for it again.
    expect(editForm.shown).not.toContain(ACCOUNT);
    await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: {
        id: editForm.id,
        state: {
          values: requestFormValues({
            ...PAYOUT,
            amount: '30.00',
            beneficiary_account: '000987654321',
            purpose: 'Invoice 2291 and 2292',
          }),
        },
      },
    });
    const newCard = await r.slack.waitForCall(
      'chat.postMessage',
      (call) =>
        call.args.channel === APPROVALS &&
        call.args.thread_ts === undefined &&
        JSON.stringify(call.args).includes(`Replaces #${id}`),
      { timeoutMs: 8_000 },
    );
    const shownNew = JSON.stringify(newCard.args);
    const newId = Number(/^#(\d+) /.exec(String(newCard.args.text))?.[1]);
    expect(newId).toBeGreaterThan(id);
    expect(shownNew).toContain('*Amount:* `25.50` → `30.00`');
    expect(shownNew).toContain('*Account:* `••••6789` → `••••4321`');
    expect(shownNew).toContain('*Purpose:* `Invoice 2291` → `Invoice 2291 and 2292`');
    expect(shownNew).not.toContain('000987654321');
    expect(shownNew).not.toContain(ACCOUNT);
    expect(shownNew).toContain('0 of 2 approvals');

    const replaced = await r.bot.store.get(id);
    const replacing = await r.bot.store.get(newId);
    expect(replaced?.status).toBe('superseded');
    expect(replacing?.status).toBe('pending');
    expect(replacing?.approvals).toEqual([]);
    expect(replacing?.fingerprint).not.toBe(replaced?.fingerprint);
    expect((await r.bot.store.history(id)).map((entry) => entry.event)).toContain('superseded');

    // The old card says so, without buttons; a stale Approve on it counts for nothing.
    const oldCard = await cardShowing(r, ts, /Superseded/);
    expect(oldCard).toContain(`request #${newId}`);
    expect(oldCard).not.toContain(ACTION.approve);
    const stale = await click(r, ACTION.approve, 'U0CAROL', ts, `${id}:${replaced?.fingerprint}`);
    const told = await r.slack.nextResponse(stale.responseUrlId as string);
    expect(JSON.stringify(told.body)).toContain('was replaced by an edited request');
    expect((await r.bot.store.get(id))?.approvals).toHaveLength(1);

    // The new request is approved from zero, and only it is sent, once.
    const newTs = (newCard.response as unknown as { ts: string }).ts;
    await click(r, ACTION.approve, 'U0BOB', newTs, `${newId}:${replacing?.fingerprint}`);
    await cardShowing(r, newTs, /1 of 2 approvals/);
    await click(r, ACTION.approve, 'U0CAROL', newTs, `${newId}:${replacing?.fingerprint}`);
    await cardShowing(r, newTs, /Submitted to the provider/);
    const sent = payoutsSent(r).slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).toContain('30.00');
    expect(JSON.stringify(sent[0])).not.toContain('25.50');
  });
});
