/**
 * Who may do what. A role is a list of Slack user IDs (`U…`/`W…`) and user group IDs (`S…`).
 * Group members are read through a directory (Slack's `usergroups.users.list`), cached briefly,
 * and access is denied when the directory cannot answer: a payments tool fails closed.
 */

export type RoleName = 'reader' | 'requester' | 'approver';

export interface RoleMembers {
  /** Which role the list grants: a refusal names it and who holds it. */
  role: RoleName;
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

export interface GroupDirectory {
  /** Current members of a user group; throws when the directory cannot tell. */
  members(groupId: string): Promise<readonly string[]>;
}

export type AccessDecision =
  | { allowed: true }
  | { allowed: false; reason: 'not_member' | 'directory_unavailable'; role: RoleMembers };

export const USER_ID = /^[UW][A-Z0-9]{2,}$/;
export const GROUP_ID = /^S[A-Z0-9]{2,}$/;

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

interface CachedGroup {
  members: ReadonlySet<string>;
  expiresAt: number;
}

export class AccessControl {
  readonly #directory: GroupDirectory;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CachedGroup>();
  /** One directory call per group at a time, however many clicks arrive together. */
  readonly #pending = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(directory: GroupDirectory, options: { ttlMs?: number; now?: () => number } = {}) {
    this.#directory = directory;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Whether `userId` holds `role`. `fresh` asks the directory now rather than trusting a cached
   * answer: for the decisions that move money, where a removal must take effect at once.
   */
  async check(
    role: RoleMembers,
    userId: string,
    options: { fresh?: boolean } = {},
  ): Promise<AccessDecision> {
    if (role.users.has(userId)) return { allowed: true };
    let unavailable = false;
    for (const groupId of role.groups) {
      try {
        if (options.fresh) this.forget(groupId);
        if ((await this.#groupMembers(groupId)).has(userId)) return { allowed: true };
      } catch {
        unavailable = true;
      }
    }
    return { allowed: false, reason: unavailable ? 'directory_unavailable' : 'not_member', role };
  }

  /** Drops a group's cached members, e.g. when Slack reports a membership change. */
  forget(groupId: string): void {
    this.#cache.delete(groupId);
  }

  async #groupMembers(groupId: string): Promise<ReadonlySet<string>> {
    const cached = this.#cache.get(groupId);
    if (cached && cached.expiresAt > this.#now()) return cached.members;
    let pending = this.#pending.get(groupId);
    if (!pending) {
      pending = this.#directory
        .members(groupId)
        .then((list) => {
          const members = new Set(list);
          this.#cache.set(groupId, { members, expiresAt: this.#now() + this.#ttlMs });
          return members;
        })
        .finally(() => this.#pending.delete(groupId));
      this.#pending.set(groupId, pending);
    }
    return pending;
  }
}
