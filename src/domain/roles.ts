/**
 * A role (requesters, approvers, readers) as configured: Slack user IDs (`U…`/`W…`) and user
 * group IDs (`S…`). Who is in a group is asked of Slack at the moment (src/app/access.ts).
 */

export type RoleName = 'reader' | 'requester' | 'approver';

export interface RoleMembers {
  /** Which role the list grants: a refusal names it and who holds it. */
  role: RoleName;
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const GROUP_ID = /^S[A-Z0-9]{2,}$/;

/** Splits `U123,S456` into users and groups; unknown forms are returned as problems. */
export function parseRoleMembers(
  list: string,
  role: RoleName,
): { members: RoleMembers; invalid: string[] } {
  const users = new Set<string>();
  const groups = new Set<string>();
  const invalid: string[] = [];
  for (const entry of list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    if (USER_ID.test(entry)) users.add(entry);
    else if (GROUP_ID.test(entry)) groups.add(entry);
    else invalid.push(entry);
  }
  return { members: { role, users, groups }, invalid };
}

/** The people of an approval chain's step (src/domain/approval-chain.ts) as a role to check. */
export function stepRole(approvers: readonly string[]): RoleMembers {
  return {
    role: 'approver',
    users: new Set(approvers.filter((id) => USER_ID.test(id))),
    groups: new Set(approvers.filter((id) => GROUP_ID.test(id))),
  };
}
