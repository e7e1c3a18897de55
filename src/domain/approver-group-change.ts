/**
 * A change of an approver group's members, as the audit chain records it and the approvals
 * channel is told of it: the group and who was added and removed, Slack ids only.
 */

/** The audit event of an approver group's change, and the announcement telling it. */
export const APPROVER_GROUP_CHANGED = 'approver_group_changed';

export interface ApproverGroupChange {
  group: string;
  /** Sorted. */
  added: string[];
  /** Sorted. */
  removed: string[];
}

/** Who joined and left `group` between its `recorded` members and those just `read`. */
export function groupChange(
  group: string,
  recorded: readonly string[],
  read: readonly string[],
): ApproverGroupChange {
  const before = new Set(recorded);
  const after = new Set(read);
  return {
    group,
    added: [...after].filter((member) => !before.has(member)).sort(),
    removed: [...before].filter((member) => !after.has(member)).sort(),
  };
}

/** Whether anyone joined or left. */
export function changesMembers(change: ApproverGroupChange): boolean {
  return change.added.length > 0 || change.removed.length > 0;
}

/** The change an audit row's detail or an announcement's body holds; undefined if none. */
export function readApproverGroupChange(body: unknown): ApproverGroupChange | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { group, added, removed } = body as Record<string, unknown>;
  if (typeof group !== 'string' || !isIdList(added) || !isIdList(removed)) return undefined;
  const change = { group, added, removed };
  return changesMembers(change) ? change : undefined;
}

function isIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
