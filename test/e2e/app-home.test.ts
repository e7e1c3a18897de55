import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import type { JsonObject } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { approvalMessageTs, ask, payoutsSent } from '../helpers/slack.ts';

/**
 * Each person's queue on payops's Home tab, and the reminders of requests left waiting: end to
 * end, through signed Slack requests, the Payments sandbox and the Slack emulation.
 */

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

function payoutText(amount: string): string {
  const fields = { ...PAYOUT, amount };
  return `payout ${Object.entries(fields)
    .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
    .join(' ')}`;
}

/** `/pay payout …` as `userId`; the request's number and its approval message. */
async function requestPayout(r: Rehearsal, amount: string, userId: string) {
  const answer = await ask(r, payoutText(amount), { userId });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  expect(id).toBeGreaterThan(0);
  return { id, ts: await approvalMessageTs(r, id, APPROVALS) };
}

/** As Slack sends it: with the Home it shows them, once one was published. */
function openHome(r: Rehearsal, userId: string) {
  const shown = r.slack.homeView(userId);
  return r.driver.event({
    event: {
      type: 'app_home_opened',
      user: userId,
      channel: `D${userId.slice(1)}`,
      tab: 'home',
      ...(shown === undefined ? {} : { view: shown }),
    },
  });
}

/** Every Home button of `actionId` with the request its value names. */
function homeButtons(
  view: JsonObject,
  actionId: string,
): Array<{ id: number; value: string; confirm: unknown }> {
  const blocks = (view.blocks ?? []) as Array<{ type: string; elements?: JsonObject[] }>;
  return blocks
    .filter((block) => block.type === 'actions')
    .flatMap((block) => block.elements ?? [])
    .filter((element) => element.action_id === actionId)
    .map((element) => ({
      id: (JSON.parse(String(element.value)) as { id: number }).id,
      value: String(element.value),
      confirm: element.confirm,
    }));
}

/** `userId`'s Home once it `shows` what is expected. */
function homeWhere(r: Rehearsal, userId: string, shows: (view: JsonObject) => boolean) {
  return r.slack.waitFor(
    () => {
      const view = r.slack.homeView(userId);
      return view !== undefined && shows(view) && view;
    },
    { timeoutMs: 8_000 },
  );
}

const queueOf = (view: JsonObject) =>
  homeButtons(view, ACTION.homeApprove)
    .map((button) => button.id)
    .sort((a, b) => a - b);

/** A click on a Home button; its answer comes as a modal (a Home has no response_url). */
async function clickHome(r: Rehearsal, userId: string, actionId: string, value: string) {
  const view = r.slack.homeView(userId) as JsonObject;
  const before = r.slack.callsTo('views.update').length;
  const sent = await r.driver.blockAction({
    userId,
    actionId,
    value,
    view: { id: String(view.id) },
  });
  expect(sent.status).toBe(200);
  const answer = await r.slack.waitForCall(
    'views.update',
    (call) => r.slack.callsTo('views.update').indexOf(call) >= before,
    { timeoutMs: 8_000 },
  );
  return JSON.stringify(answer.args.view);
}

function threadReplies(r: Rehearsal, ts: string) {
  return r.slack
    .callsTo('chat.postMessage')
    .filter((call) => call.args.thread_ts === ts)
    .map((call) => String(call.args.text));
}

describe('the App Home: each person their queue', () => {
  let r: Rehearsal;
  const policyFile = join(tmpdir(), `payops-home-policy-${process.pid}.yml`);

  beforeAll(async () => {
    writeFileSync(policyFile, 'default_approvals: 2\n');
    r = await startRehearsal({
      env: { PAYOPS_POLICY_FILE: policyFile },
      slack: { rateLimits: 'off' },
      bot: { sweepIntervalMs: 100 },
    });
  });
  afterAll(() => r.close());

  it('lists exactly what each approver may approve; approving from it calls once and updates the card and the requester’s Home', async () => {
    const alices = await requestPayout(r, '11.00', 'U0ALICE');
    const daves = await requestPayout(r, '12.00', 'U0DAVE');
    for (const user of ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE']) await openHome(r, user);

    // Bob and Carol may approve both; Alice, an approver too, not her own; Dave approves nothing.
    const bob = await homeWhere(r, 'U0BOB', (view) => queueOf(view).length === 2);
    expect(queueOf(bob)).toEqual([alices.id, daves.id]);
    const carolBefore = await homeWhere(r, 'U0CAROL', (view) => queueOf(view).length === 2);
    const alice = await homeWhere(r, 'U0ALICE', (view) => queueOf(view).length === 1);
    expect(queueOf(alice)).toEqual([daves.id]);
    expect(JSON.stringify(alice)).toContain('Your requests');
    const dave = await homeWhere(r, 'U0DAVE', (view) =>
      JSON.stringify(view).includes('Your requests'),
    );
    expect(JSON.stringify(dave)).not.toContain('Waiting for your approval');
    expect(queueOf(dave)).toEqual([]);

    // The Home's Approve asks exactly what the card's asks.
    const card = r.slack.message(APPROVALS, alices.ts) as unknown as { blocks: JsonObject[] };
    const cardConfirm = (card.blocks as Array<{ elements?: JsonObject[] }>)
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.action_id === ACTION.approve)?.confirm;
    const homeConfirm = homeButtons(bob, ACTION.homeApprove).find(
      (b) => b.id === alices.id,
    )?.confirm;
    expect(cardConfirm).toBeDefined();
    expect(homeConfirm).toEqual(cardConfirm);

    // Bob approves Alice's request from his Home: counted, and gone from his queue.
    const bobsButton = homeButtons(bob, ACTION.homeApprove).find((b) => b.id === alices.id);
    expect(await clickHome(r, 'U0BOB', ACTION.homeApprove, String(bobsButton?.value))).toContain(
      `Your approval of #${alices.id} is counted: 1 of 2`,
    );
    await homeWhere(r, 'U0BOB', (view) => queueOf(view).join() === String(daves.id));

    // Carol's Home as drawn before that approval cannot approve: the request changed since.
    const staleButton = homeButtons(carolBefore, ACTION.homeApprove).find(
      (b) => b.id === alices.id,
    );
    expect(await clickHome(r, 'U0CAROL', ACTION.homeApprove, String(staleButton?.value))).toContain(
      'changed since your Home showed it',
    );
    expect(payoutsSent(r)).toHaveLength(0);

    // Dave, no approver, cannot approve with a button he made himself.
    expect(await clickHome(r, 'U0DAVE', ACTION.homeApprove, String(staleButton?.value))).toMatch(
      /not an approver.*The approvers are <!subteam\^S0APPROVERS>/,
    );

    // Carol's Home now shows 1 of 2; her approval completes it: one call, the card updated.
    const carol = await homeWhere(r, 'U0CAROL', (view) =>
      JSON.stringify(view).includes('1 of 2 approvals'),
    );
    const carolsButton = homeButtons(carol, ACTION.homeApprove).find((b) => b.id === alices.id);
    expect(
      await clickHome(r, 'U0CAROL', ACTION.homeApprove, String(carolsButton?.value)),
    ).toContain(`Your approval of #${alices.id} completed it`);
    expect(payoutsSent(r)).toHaveLength(1);
    await r.slack.waitForCall(
      'chat.update',
      (call) =>
        call.args.ts === alices.ts && /Submitted to the provider/.test(JSON.stringify(call.args)),
      { timeoutMs: 8_000 },
    );

    // Alice's Home shows her request's status as it is now, and it left every queue.
    const aliceAfter = await homeWhere(r, 'U0ALICE', (view) =>
      JSON.stringify(view).includes('Submitted to the provider'),
    );
    expect(JSON.stringify(aliceAfter)).toContain(`#${alices.id} · Create a payout`);
    await homeWhere(r, 'U0CAROL', (view) => queueOf(view).join() === String(daves.id));
    // A click on a button still shown somewhere sends nothing more.
    await clickHome(r, 'U0CAROL', ACTION.homeApprove, String(carolsButton?.value));
    expect(payoutsSent(r)).toHaveLength(1);
  });

  it('a person with no role gets one static Home: opening it again or freezing payments draws nothing more', async () => {
    const drawn = () =>
      r.slack
        .callsTo('views.publish')
        .filter((call) => call.args.user_id === 'U0ERIN' && call.response.ok);
    await openHome(r, 'U0ERIN');
    const home = await homeWhere(r, 'U0ERIN', (view) => JSON.stringify(view).includes('Sorry'));
    expect(JSON.stringify(home)).toContain('not on the list of people who may use payops');
    expect(drawn()).toHaveLength(1);

    await openHome(r, 'U0ERIN');
    await ask(r, 'freeze static Home drill', { userId: 'U0BOB' });
    await ask(r, 'unfreeze', { userId: 'U0BOB' });
    await openHome(r, 'U0ERIN');
    // Past the 2 s a Home waits between two drawings, and the refresher's next pass.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(drawn()).toHaveLength(1);
  });

  it('rejects from the Home through the same reason form', async () => {
    const { id, ts } = await requestPayout(r, '13.00', 'U0DAVE');
    await openHome(r, 'U0BOB');
    const bob = await homeWhere(r, 'U0BOB', (view) => queueOf(view).includes(id));
    const button = homeButtons(bob, ACTION.homeReject).find((b) => b.id === id);
    const form = await clickHome(r, 'U0BOB', ACTION.homeReject, String(button?.value));
    expect(form).toContain('Why is it rejected?');
    const viewId = String(r.slack.callsTo('views.update').at(-1)?.args.view_id);
    const submitted = await r.driver.viewSubmission({
      userId: 'U0BOB',
      view: {
        id: viewId,
        state: {
          values: { reason: { reason: { type: 'plain_text_input', value: 'wrong wallet' } } },
        },
      },
    });
    expect(submitted.ack?.response_action).toBeUndefined();
    await r.slack.waitForCall(
      'chat.update',
      (call) => call.args.ts === ts && /Rejected/.test(JSON.stringify(call.args)),
      { timeoutMs: 8_000 },
    );
    await homeWhere(r, 'U0BOB', (view) => !queueOf(view).includes(id));
  });
});

describe('the Home when Slack is slow or refuses it', () => {
  let r: Rehearsal;
  beforeAll(async () => {
    r = await startRehearsal({ slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());

  it('a rejection answered after its form closed is told in a direct message, refusal included', async () => {
    const { id } = await requestPayout(r, '14.00', 'U0DAVE');
    await openHome(r, 'U0BOB');
    const bob = await homeWhere(r, 'U0BOB', (view) => queueOf(view).includes(id));
    const button = homeButtons(bob, ACTION.homeReject).find((b) => b.id === id);
    await clickHome(r, 'U0BOB', ACTION.homeReject, String(button?.value));
    const viewId = String(r.slack.callsTo('views.update').at(-1)?.args.view_id);
    // Cancelled meanwhile, and Slack's directory slow to say bob is still an approver.
    expect((await r.bot.workflow.cancel(id, 'U0DAVE')).kind).toBe('done');
    await r.driver.event({ event: { type: 'subteam_members_changed', subteam_id: 'S0APPROVERS' } });
    r.slack.delayNext('usergroups.users.list', 2_500);
    const submitted = await r.driver.viewSubmission({
      userId: 'U0BOB',
      view: {
        id: viewId,
        state: { values: { reason: { reason: { type: 'plain_text_input', value: 'late' } } } },
      },
    });
    expect(submitted.ack?.response_action).toBeUndefined();
    const told = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === 'U0BOB',
      {
        timeoutMs: 8_000,
      },
    );
    expect(String(told.args.text)).toContain(`#${id}`);
    expect(String(told.args.text)).not.toContain('is rejected');
  });

  it('a Home Slack refuses for what it holds is not tried again every few seconds, only when opened again', async () => {
    r.slack.failNext('views.publish', 'invalid_blocks', { times: 100 });
    const refused = () =>
      r.slack
        .callsTo('views.publish')
        .filter((call) => call.args.user_id === 'U0CAROL' && call.response.ok === false).length;
    await openHome(r, 'U0CAROL');
    await expect.poll(refused, { timeout: 5_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(refused()).toBe(1);
    await openHome(r, 'U0CAROL');
    await expect.poll(refused, { timeout: 5_000 }).toBe(2);
  });
});

describe('reminders of requests left waiting', () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal({
      env: { PAYOPS_REMIND_AFTER: '1s' },
      slack: { rateLimits: 'off' },
      bot: { sweepIntervalMs: 100 },
    });
  });
  afterAll(() => r.close());

  it('nudges the approvers once, not at every sweep', async () => {
    const { id, ts } = await requestPayout(r, '21.00', 'U0ALICE');
    await r.slack.waitFor(() => threadReplies(r, ts).some((text) => text.includes(':bell:')), {
      timeoutMs: 8_000,
    });
    // Thirty sweeps later, still the one.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const reminders = threadReplies(r, ts).filter((text) => text.includes(':bell:'));
    expect(reminders).toHaveLength(1);
    expect(reminders[0]).toContain('<!subteam^S0APPROVERS>');
    expect(reminders[0]).toContain(`#${id} · Create a payout`);
  });

  it('while payments are frozen, says so instead of nudging', async () => {
    await ask(r, 'freeze incident 42', { userId: 'U0BOB' });
    try {
      const { ts } = await requestPayout(r, '22.00', 'U0ALICE');
      const reminder = await r.slack.waitFor(
        () => threadReplies(r, ts).find((text) => text.includes('payments are frozen')),
        { timeoutMs: 8_000 },
      );
      expect(reminder).toContain('incident 42');
      expect(reminder).not.toContain('<!subteam^');
      expect(reminder).not.toContain(':bell:');
    } finally {
      await ask(r, 'unfreeze', { userId: 'U0BOB' });
    }
  });
});
