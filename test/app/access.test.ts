import { describe, expect, it } from 'vitest';
import { AccessControl, FRESH_MS, type MembershipWatch } from '../../src/app/access.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';

/** Group membership as Slack's directory answers it, counting the reads; `hold` makes reads wait. */
function directory(initial: string[]) {
  const state = { members: initial, reads: 0, gate: undefined as Promise<void> | undefined };
  return {
    state,
    members: async () => {
      state.reads++;
      const members = state.members;
      await state.gate;
      return members;
    },
    /** Reads wait until the returned function is called. */
    hold(): () => void {
      let open = () => {};
      state.gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return () => {
        state.gate = undefined;
        open();
      };
    },
  };
}

const approvers = parseRoleMembers('S0APPROVERS', 'approver').members;

describe('access control', () => {
  it('a fresh check reads the group again once its last read is FRESH_MS old, not at every click', async () => {
    let clock = 0;
    const slack = directory(['U0BOB']);
    const access = new AccessControl(slack, { now: () => clock });
    // A batch of approvals, one every 2 s for a minute.
    for (let click = 0; click < 30; click++) {
      expect((await access.check(approvers, 'U0BOB', { fresh: true })).allowed).toBe(true);
      clock += 2_000;
    }
    expect(slack.state.reads).toBeLessThanOrEqual(Math.ceil(60_000 / FRESH_MS) + 1);
    expect(slack.state.reads).toBeLessThan(20); // Slack's tier 2, per minute

    slack.state.members = [];
    expect((await access.check(approvers, 'U0BOB')).allowed).toBe(true); // the cached minute
    clock += FRESH_MS;
    expect(await access.check(approvers, 'U0BOB', { fresh: true })).toMatchObject({
      allowed: false,
      reason: 'not_member',
    });
  });

  it('a change Slack announces drops the cache at once, and a read begun before it is not kept', async () => {
    const slack = directory(['U0BOB']);
    const access = new AccessControl(slack, { now: () => 0 });
    const open = slack.hold();
    const before = access.check(approvers, 'U0BOB');
    access.forget('S0APPROVERS');
    slack.state.members = [];
    open();
    expect((await before).allowed).toBe(true);
    expect((await access.check(approvers, 'U0BOB')).allowed).toBe(false);
    expect(slack.state.reads).toBe(2);
  });

  it('tells its watch each read of a group, with when the read began; a cached answer is no read', async () => {
    let clock = 1_000;
    const slack = directory(['U0BOB']);
    const { watch, learnt } = watching(['S0APPROVERS']);
    const access = new AccessControl(slack, { now: () => clock, watch });
    await access.check(approvers, 'U0BOB');
    await access.check(approvers, 'U0BOB');
    clock += 60_000;
    slack.state.members = ['U0CAROL'];
    expect((await access.check(approvers, 'U0BOB')).allowed).toBe(false);
    expect(learnt).toEqual([
      ['S0APPROVERS', ['U0BOB'], 1_000],
      ['S0APPROVERS', ['U0CAROL'], 61_000],
    ]);
  });

  it('a change Slack announces reads a watched group at once, and only forgets another', async () => {
    const slack = directory(['U0BOB']);
    const { watch, learnt } = watching(['S0APPROVERS']);
    let clock = 0;
    // A clock that moves at every look: the read begins after the change, not in its instant.
    const access = new AccessControl(slack, { now: () => clock++, watch });
    await access.changed('S0READERS');
    expect(slack.state.reads).toBe(0);
    slack.state.members = ['U0CAROL'];
    const open = slack.hold();
    const changing = access.changed('S0APPROVERS');
    // A check while that read is under way waits for it rather than asking again.
    const during = access.check(approvers, 'U0CAROL', { fresh: true });
    open();
    await changing;
    expect((await during).allowed).toBe(true);
    expect(slack.state.reads).toBe(1);
    expect(learnt).toEqual([['S0APPROVERS', ['U0CAROL'], 2]]);
    // It is not kept: a check after it asks the directory, as after any forget.
    expect((await access.check(approvers, 'U0CAROL')).allowed).toBe(true);
    expect(slack.state.reads).toBe(2);
  });

  it('a change Slack announces, read while the directory fails, rejects and leaves nothing cached', async () => {
    const { watch, learnt } = watching(['S0APPROVERS']);
    let fail = true;
    const access = new AccessControl(
      {
        members: async () => {
          if (fail) throw new Error('Slack could not list the group');
          return ['U0BOB'];
        },
      },
      { now: () => 0, watch },
    );
    await expect(access.changed('S0APPROVERS')).rejects.toThrow(/could not list/);
    fail = false;
    expect((await access.check(approvers, 'U0BOB')).allowed).toBe(true);
    expect(learnt).toEqual([['S0APPROVERS', ['U0BOB'], 0]]);
  });
});

/** A watch of `groups` that keeps what it is told, in `learnt`. */
function watching(groups: string[]) {
  const learnt: Array<[string, string[], number]> = [];
  const watch: MembershipWatch = {
    watches: (groupId) => groups.includes(groupId),
    learnt: (groupId, members, readAt) => {
      learnt.push([groupId, [...members], readAt]);
    },
  };
  return { watch, learnt };
}
