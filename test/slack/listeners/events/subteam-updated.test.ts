import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { parseRoleMembers } from '../../../../src/domain/roles.ts';
import { subteamUpdatedCallback } from '../../../../src/slack/listeners/events/subteam-updated.ts';
import { FakeDirectory } from '../../../fakes/group-directory.ts';
import { eventDeps } from '../../../helpers/listeners.ts';

type UpdatedArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_updated'>;

const READERS = parseRoleMembers('S0READERS', 'reader').members;

function updated(groupId: string) {
  const event = { type: 'subteam_updated', subteam: { id: groupId, name: 'Readers' } };
  return { event } as unknown as UpdatedArgs;
}

describe('subteamUpdatedCallback', () => {
  it('drops the changed group’s cached members: someone added to it is let in at once', async () => {
    const directory = new FakeDirectory({ S0READERS: [] });
    const deps = eventDeps(directory);
    expect((await deps.access.check(READERS, 'U0ERIN')).allowed).toBe(false);
    directory.groups.set('S0READERS', ['U0ERIN']);
    await subteamUpdatedCallback(deps)(updated('S0READERS'));
    expect(await deps.access.check(READERS, 'U0ERIN')).toEqual({ allowed: true });
    expect(directory.reads).toEqual(['S0READERS', 'S0READERS']);
  });

  it('keeps the cached members of a group that did not change', async () => {
    const directory = new FakeDirectory({ S0READERS: [] });
    const deps = eventDeps(directory);
    await deps.access.check(READERS, 'U0ERIN');
    directory.groups.set('S0READERS', ['U0ERIN']);
    await subteamUpdatedCallback(deps)(updated('S0OTHERS'));
    expect((await deps.access.check(READERS, 'U0ERIN')).allowed).toBe(false);
  });
});
