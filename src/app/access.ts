import type { RoleMembers } from '../domain/roles.ts';

/**
 * Who may do what, a role (src/domain/roles.ts) at a time. Group members are read through a
 * directory (Slack's `usergroups.users.list`), cached briefly, and access is denied when the
 * directory cannot answer: a payments tool fails closed.
 */

export interface GroupDirectory {
  /** Current members of a user group; throws when the directory cannot tell. */
  members(groupId: string): Promise<readonly string[]>;
}

export type AccessDecision =
  | { allowed: true }
  | { allowed: false; reason: 'not_member' | 'directory_unavailable'; role: RoleMembers };

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
