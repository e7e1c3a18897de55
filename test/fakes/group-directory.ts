import type { GroupDirectory } from '../../src/app/access.ts';

/**
 * Slack's user groups in memory (`usergroups.users.list`): each group's members as the test sets
 * them, every read counted; `unavailable` makes every read fail, as when Slack cannot answer.
 */
export class FakeDirectory implements GroupDirectory {
  readonly groups = new Map<string, string[]>();
  readonly reads: string[] = [];
  unavailable = false;

  constructor(groups: Record<string, string[]> = {}) {
    for (const [groupId, members] of Object.entries(groups)) this.groups.set(groupId, members);
  }

  async members(groupId: string): Promise<readonly string[]> {
    this.reads.push(groupId);
    if (this.unavailable) throw new Error('Slack could not list the group');
    return this.groups.get(groupId) ?? [];
  }
}
