import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { parseRoleMembers } from '../../../../src/domain/roles.ts';
import { subteamMembersChangedCallback } from '../../../../src/slack/listeners/events/subteam-members-changed.ts';
import { FakeDirectory } from '../../../fakes/group-directory.ts';
import { eventDeps } from '../../../helpers/listeners.ts';

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
});
