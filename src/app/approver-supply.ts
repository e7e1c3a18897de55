import type { ApproverSupply } from '../domain/policy.ts';
import type { RoleMembers } from '../domain/roles.ts';
import type { GroupDirectory } from './access.ts';

/**
 * Counts the distinct approvers at start-up: users listed and members of listed groups, each
 * group asked once. A group Slack cannot list is left uncounted and named.
 */
export async function approverSupply(
  roles: { requesters: RoleMembers; approvers: RoleMembers },
  directory: GroupDirectory,
  stepGroups: readonly string[] = [],
): Promise<ApproverSupply> {
  const lists = new Map<string, Promise<readonly string[] | undefined>>();
  const listed = (groupId: string) => {
    let members = lists.get(groupId);
    if (!members) {
      members = directory.members(groupId).catch(() => undefined);
      lists.set(groupId, members);
    }
    return members;
  };
  const membersOf = async (role: RoleMembers) => {
    const groups = await Promise.all([...role.groups].map(listed));
    return {
      users: new Set([...role.users, ...groups.flatMap((members) => members ?? [])]),
      complete: groups.every((members) => members !== undefined),
    };
  };
  const [approvers, requesters] = await Promise.all([
    membersOf(roles.approvers),
    membersOf(roles.requesters),
  ]);
  const steps = new Map<string, readonly string[]>();
  for (const groupId of stepGroups) {
    const members = await listed(groupId);
    if (members !== undefined) steps.set(groupId, members);
  }
  const unlisted: string[] = [];
  for (const [groupId, members] of lists) if ((await members) === undefined) unlisted.push(groupId);
  return {
    ...(stepGroups.length > 0 && {
      stepGroups: steps,
      requesters: requesters.complete ? requesters.users : undefined,
    }),
    approvers: approvers.users.size,
    // Requesters Slack could not list may include approvers: assume one does.
    approverMayRequest:
      !requesters.complete || [...approvers.users].some((user) => requesters.users.has(user)),
    unlisted,
  };
}
