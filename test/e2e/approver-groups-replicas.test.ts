import { describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../src/rehearsal/sandbox/slack.ts';
import { sleep, startPayops } from '../helpers/bot-process.ts';
import { engines } from '../helpers/db.ts';
import { replicasOnPostgres } from '../helpers/replicas.ts';

/**
 * Replicas on one PostgreSQL learn an approver group's change each by its own read: the group's
 * row lock, not any process's memory, makes it one audit row and one announcement.
 */

const onPostgres = engines().includes('postgres');
if (!onPostgres)
  console.warn(
    'approver-groups-replicas.test.ts is skipped: replicas sharing a database need PostgreSQL (TEST_DATABASE_URL)',
  );

describe.skipIf(!onPostgres)('an approver group’s change seen by two payops processes', () => {
  const setting = replicasOnPostgres();

  it('both told of it at once: one audit row, one announcement', { timeout: 45_000 }, async () => {
    const { slack, database } = setting;
    const env = setting.env();
    const [a, b] = await Promise.all([startPayops('A', env), startPayops('B', env)]);
    const [toA, toB] = [a, b].map((replica) => slack.driver(replica.eventsUrl)) as [
      SlackDriver,
      SlackDriver,
    ];
    const reads = () => slack.callsTo('usergroups.users.list').length;
    const recorded = async () =>
      (
        await database.db.query<{ members: string[] }>(
          "select members from approver_groups where group_id = 'S0APPROVERS'",
        )
      )[0]?.members;

    // The group as it was: recorded by A's first read of it, announced to nobody.
    await toA.event({
      event: { type: 'subteam_updated', subteam: { id: 'S0APPROVERS', name: 'PayOps approvers' } },
    });
    await expect.poll(recorded, { timeout: 10_000 }).toEqual(['U0ALICE', 'U0BOB', 'U0CAROL']);

    const before = reads();
    const event = slack.changeGroupMembers('S0APPROVERS', ['U0ALICE', 'U0BOB', 'U0ERIN']);
    // Both learn of it at once, each from its own event (the members' change to A, the group's
    // update to B): the same event signed twice in one second would be one request to the
    // replicas' shared replay record, refused the second time.
    await Promise.all([
      toA.event({ event, eventId: 'EvGROUP' }),
      toB.event({
        event: {
          type: 'subteam_updated',
          subteam: { id: 'S0APPROVERS', name: 'PayOps approvers' },
        },
      }),
    ]);
    const text =
      '<@U0ERIN> was added to approvers group <!subteam^S0APPROVERS>; <@U0CAROL> was removed.';
    await slack.waitForCall('chat.postMessage', (call) => call.args.text === text, {
      timeoutMs: 10_000,
    });
    await slack.waitFor(() => reads() >= before + 2, { description: 'both replicas’ reads' });
    // Time for the slower replica's comparison, and for any second announcement to go out.
    await sleep(1_500);

    expect(await recorded()).toEqual(['U0ALICE', 'U0BOB', 'U0ERIN']);
    const audit = await database.db.query<{ detail: unknown }>(
      "select detail from audit_log where event = 'approver_group_changed'",
    );
    expect(audit).toHaveLength(1);
    const posted = slack.callsTo('chat.postMessage').filter((call) => call.args.text === text);
    expect(posted).toHaveLength(1);
  });
});
