import { describe, expect, it } from 'vitest';
import type { GroupDirectory } from '../../src/app/access.ts';
import { approverSupply } from '../../src/app/approver-supply.ts';
import type { RoleMembers, RoleName } from '../../src/domain/roles.ts';

const role = (name: RoleName, users: string[], groups: string[] = []): RoleMembers => ({
  role: name,
  users: new Set(users),
  groups: new Set(groups),
});

/** Groups as Slack lists them; any other group cannot be listed. Counts the calls. */
function directory(groups: Record<string, string[]>): GroupDirectory & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async members(groupId) {
      asked.push(groupId);
      const members = groups[groupId];
      if (!members) throw new Error('plan_upgrade_required');
      return members;
    },
  };
}

describe('approverSupply', () => {
  it('counts distinct people: users listed and group members, each group asked once', async () => {
    const slack = directory({ S0OPS: ['U0BOB', 'U0CAROL'], S0LEADS: ['U0CAROL', 'U0ERIN'] });
    const supply = await approverSupply(
      {
        approvers: role('approver', ['U0BOB'], ['S0OPS', 'S0LEADS']),
        requesters: role('requester', ['U0DAVE'], ['S0OPS']),
      },
      slack,
    );
    expect(supply).toEqual({ approvers: 3, approverMayRequest: true, unlisted: [] });
    expect(slack.asked.sort()).toEqual(['S0LEADS', 'S0OPS']);
  });

  it('no approver requests: nobody is lost to their own request', async () => {
    const supply = await approverSupply(
      {
        approvers: role('approver', ['U0BOB', 'U0CAROL']),
        requesters: role('requester', ['U0ALICE']),
      },
      directory({}),
    );
    expect(supply).toEqual({ approvers: 2, approverMayRequest: false, unlisted: [] });
  });

  it('a group Slack cannot list is named, not counted; unlisted requesters may be approvers', async () => {
    const supply = await approverSupply(
      {
        approvers: role('approver', ['U0BOB'], ['S0GONE']),
        requesters: role('requester', [], ['S0HIDDEN']),
      },
      directory({}),
    );
    expect(supply).toEqual({
      approvers: 1,
      approverMayRequest: true,
      unlisted: ['S0GONE', 'S0HIDDEN'],
    });
  });
});
