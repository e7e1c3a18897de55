import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { AccessControl, type MembershipWatch } from '../../../../src/app/access.ts';
import { parseRoleMembers } from '../../../../src/domain/roles.ts';
import { subteamMembersChangedCallback } from '../../../../src/slack/listeners/events/subteam-members-changed.ts';
import { FakeDirectory } from '../../../fakes/group-directory.ts';
import { FakeHome } from '../../../fakes/home.ts';
import { eventDeps, keptLogger } from '../../../helpers/listeners.ts';

type MembersChangedArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_members_changed'>;

const APPROVERS = parseRoleMembers('S0APPROVERS,S0OTHERS', 'approver').members;

function changed(groupId: string) {
  const event = { type: 'subteam_members_changed', subteam_id: groupId, team_id: 'T0TEAM' };
  return { event } as unknown as MembersChangedArgs;
}

describe('subteamMembersChangedCallback', () => {
  it('drops the group’s cached members, so someone removed from it is refused at once', async () => {
    const directory = new FakeDirectory({ S0APPROVERS: ['U0BOB'] });
    const deps = eventDeps(directory);
    expect(await deps.access.check(APPROVERS, 'U0BOB')).toEqual({ allowed: true });
    directory.groups.set('S0APPROVERS', []);
    expect(await deps.access.check(APPROVERS, 'U0BOB')).toEqual({ allowed: true });
    await subteamMembersChangedCallback(deps)(changed('S0APPROVERS'));
    expect(await deps.access.check(APPROVERS, 'U0BOB')).toMatchObject({
      allowed: false,
      reason: 'not_member',
    });
    expect(deps.lines.join('')).toContain('"groupId":"S0APPROVERS"');
  });

  it('keeps the other groups’ cached members', async () => {
    const directory = new FakeDirectory({ S0OTHERS: ['U0BOB'] });
    const deps = eventDeps(directory);
    await deps.access.check(APPROVERS, 'U0BOB');
    const reads = directory.reads.length;
    await subteamMembersChangedCallback(deps)(changed('S0UNRELATED'));
    expect(await deps.access.check(APPROVERS, 'U0BOB')).toEqual({ allowed: true });
    expect(directory.reads).toHaveLength(reads);
  });

  it('reads a watched group at once, whatever the event says, and each event again', async () => {
    const directory = new FakeDirectory({ S0APPROVERS: ['U0BOB', 'U0CAROL'] });
    const learnt: string[][] = [];
    const deps = watchedDeps(directory, {
      watches: (groupId) => groupId === 'S0APPROVERS',
      learnt: (_groupId, members) => {
        learnt.push([...members]);
      },
    });
    const event = { ...changed('S0APPROVERS').event, added_users: ['U0ERIN'] };
    await subteamMembersChangedCallback(deps)({ event } as unknown as MembersChangedArgs);
    await subteamMembersChangedCallback(deps)({ event } as unknown as MembersChangedArgs);
    expect(learnt).toEqual([
      ['U0BOB', 'U0CAROL'],
      ['U0BOB', 'U0CAROL'],
    ]);
    expect(await deps.access.check(APPROVERS, 'U0ERIN')).toMatchObject({ allowed: false });
  });

  it('a watched group Slack cannot list is logged, not thrown', async () => {
    const directory = new FakeDirectory();
    directory.unavailable = true;
    const deps = watchedDeps(directory, { watches: () => true, learnt: () => undefined });
    await subteamMembersChangedCallback(deps)(changed('S0APPROVERS'));
    expect(deps.lines.join('')).toContain('could not read a changed user group');
  });
});

/** The events' dependencies with an AccessControl telling `watch` what it reads. */
function watchedDeps(directory: FakeDirectory, watch: MembershipWatch) {
  const { logger, lines } = keptLogger();
  return { home: new FakeHome(), access: new AccessControl(directory, { watch }), logger, lines };
}
