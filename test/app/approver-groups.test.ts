import { describe, expect, it } from 'vitest';
import { AccessControl } from '../../src/app/access.ts';
import { ApproverGroups, type ApproverGroupsPort } from '../../src/app/approver-groups.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';
import type { GroupRead, GroupReadOutcome } from '../../src/store/approver-groups-store.ts';
import { FakeDirectory } from '../fakes/group-directory.ts';
import { keptLogger } from '../helpers/listeners.ts';

const APPROVERS = parseRoleMembers('S0APPROVERS,U0DAVE', 'approver').members;
const READERS = parseRoleMembers('S0READERS', 'reader').members;

/** A store that keeps the reads it is given and answers `outcome`, or fails. */
function fakeStore(outcome: GroupReadOutcome | Error) {
  const reads: GroupRead[] = [];
  const store: ApproverGroupsPort = {
    async record(read) {
      reads.push(read);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return { store, reads };
}

function approverGroups(store: ApproverGroupsPort) {
  const { logger, lines } = keptLogger();
  const nudged: number[] = [];
  const groups = new ApproverGroups({
    store,
    groups: APPROVERS.groups,
    onChange: () => nudged.push(1),
    logger,
  });
  return { groups, lines, nudged };
}

describe('approver groups', () => {
  it('records what an access check reads of an approver group, and of no other group', async () => {
    const { store, reads } = fakeStore({ kind: 'unchanged' });
    const { groups, nudged } = approverGroups(store);
    const directory = new FakeDirectory({ S0APPROVERS: ['U0BOB'], S0READERS: ['U0ERIN'] });
    const access = new AccessControl(directory, { now: () => 5_000, watch: groups });
    expect((await access.check(APPROVERS, 'U0BOB', { fresh: true })).allowed).toBe(true);
    expect((await access.check(READERS, 'U0ERIN')).allowed).toBe(true);
    await groups.settled();
    expect(reads).toEqual([
      { groupId: 'S0APPROVERS', members: ['U0BOB'], readAt: new Date(5_000) },
    ]);
    expect(nudged).toEqual([]);
  });

  it('a recorded change nudges the outbox, whose announcement waits there', async () => {
    const change = { group: 'S0APPROVERS', added: ['U0CAROL'], removed: [] };
    const { store } = fakeStore({ kind: 'changed', change });
    const { groups, nudged, lines } = approverGroups(store);
    groups.learnt('S0APPROVERS', ['U0BOB', 'U0CAROL'], 0);
    await groups.settled();
    expect(nudged).toHaveLength(1);
    expect(lines.join('')).toContain(
      '"outcome":"changed","group":"S0APPROVERS","added":["U0CAROL"]',
    );
  });

  it('a store that cannot record leaves the access check as it was, and is logged', async () => {
    const { store } = fakeStore(new Error('the store is unreachable'));
    const { groups, nudged, lines } = approverGroups(store);
    const access = new AccessControl(new FakeDirectory({ S0APPROVERS: ['U0BOB'] }), {
      watch: groups,
    });
    expect(await access.check(APPROVERS, 'U0BOB', { fresh: true })).toEqual({ allowed: true });
    await groups.settled();
    expect(nudged).toEqual([]);
    expect(lines.join('')).toContain('could not record an approver group');
  });
});
