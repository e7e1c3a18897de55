import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FRESH_MS } from '../../src/app/access.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import type { AuditEntry } from '../../src/store/requests/audit.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { ask, requestPayout } from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const ANNOUNCED =
  '<@U0ERIN> was added to approvers group <!subteam^S0APPROVERS>; <@U0CAROL> was removed.';

describe('an approver group’s change, end to end', () => {
  let r: Rehearsal;
  const lines: string[] = [];

  beforeAll(async () => {
    r = await startRehearsal({
      env: { LOG_LEVEL: 'debug' },
      logDestination: { write: (line) => lines.push(line) },
      slack: { rateLimits: 'off' },
    });
  });
  afterAll(() => r.close());

  /** What payops compared of S0APPROVERS's reads so far: each read's outcome, in order. */
  const compared = () =>
    lines
      .filter((line) => line.includes('approver group members compared'))
      .map((line) => JSON.parse(line) as { groupId: string; outcome: string })
      .filter((line) => line.groupId === 'S0APPROVERS')
      .map((line) => line.outcome);

  const announcements = () =>
    r.slack
      .callsTo('chat.postMessage')
      .filter(
        (call) => call.args.channel === APPROVALS && /approvers group/.test(String(call.args.text)),
      );

  async function groupAudit(): Promise<AuditEntry[]> {
    const rows: AuditEntry[] = [];
    for await (const page of r.bot.store.auditLog()) rows.push(...page);
    return rows.filter((row) => row.event === 'approver_group_changed');
  }

  it('one change: one announcement and one audit row; the event sent again and an unchanged read add none', async () => {
    // payops first reads the group for bob's command: recorded, nothing to announce.
    await ask(r, 'wallets', { userId: 'U0BOB' });
    await vi.waitFor(() => expect(compared()).toEqual(['first_seen']), { timeout: 8_000 });

    const event = r.slack.changeGroupMembers('S0APPROVERS', ['U0ALICE', 'U0BOB', 'U0ERIN']);
    const sent = await r.driver.event({ event });
    expect(sent.status).toBe(200);
    const announced = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && call.args.text === ANNOUNCED,
      { timeoutMs: 8_000 },
    );
    expect(announced.response.ok).toBe(true);
    expect(announced.args.metadata).toMatchObject({ event_type: 'payops_announcement' });

    // Slack retries the event, delivers it twice, and tells of the group's update as well.
    await r.driver.event({ event, eventId: sent.eventId, retryNum: 1 });
    await r.driver.event({ event });
    await r.driver.event({
      event: { type: 'subteam_updated', subteam: { id: 'S0APPROVERS', name: 'PayOps approvers' } },
    });
    await vi.waitFor(
      () =>
        expect(compared()).toEqual([
          'first_seen',
          'changed',
          'unchanged',
          'unchanged',
          'unchanged',
        ]),
      { timeout: 8_000 },
    );

    expect(announcements().map((call) => call.args.text)).toEqual([ANNOUNCED]);
    const audit = await groupAudit();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      requestId: undefined,
      actor: 'payops',
      detail: { group: 'S0APPROVERS', added: ['U0ERIN'], removed: ['U0CAROL'] },
    });
  });

  it('a change whose event never came is found at the next read, a completing click’s, and announced once', async () => {
    r.slack.changeGroupMembers('S0APPROVERS', ['U0ALICE', 'U0BOB']);
    const { ts } = await requestPayout(
      r,
      EXAMPLE_CALLS.createPayout.body as Record<string, string>,
    );
    // An approval reads the group once its last read is FRESH_MS old.
    await sleep(FRESH_MS);
    const payouts = r.sandbox.requests.filter((call) => call.operationId === 'createPayout').length;
    await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      message: { channel: APPROVALS, ts },
    });
    const gone = '<@U0ERIN> was removed from approvers group <!subteam^S0APPROVERS>.';
    await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && call.args.text === gone,
      { timeoutMs: 8_000 },
    );
    await vi.waitFor(
      () =>
        expect(
          r.sandbox.requests.filter((call) => call.operationId === 'createPayout'),
        ).toHaveLength(payouts + 1),
      { timeout: 8_000 },
    );
    expect(compared().filter((outcome) => outcome === 'changed')).toHaveLength(2);
    expect(announcements().map((call) => call.args.text)).toEqual([ANNOUNCED, gone]);
    expect((await groupAudit()).map((row) => row.detail)).toEqual([
      { group: 'S0APPROVERS', added: ['U0ERIN'], removed: ['U0CAROL'] },
      { group: 'S0APPROVERS', added: [], removed: ['U0ERIN'] },
    ]);
  });
});
