import type { RoleMembers } from '../domain/roles.ts';

/**
 * Who may do what, a role (src/domain/roles.ts) at a time. Group members are read through a
 * directory (Slack's `usergroups.users.list`), cached briefly, and access is denied when the
 * directory cannot answer: a payments tool fails closed. Each read is told to a watch, which
 * records the approver groups' changes.
 */

export interface GroupDirectory {
  /** Current members of a user group; throws when the directory cannot tell. */
  members(groupId: string): Promise<readonly string[]>;
}

/**
 * Told of every read of a group's members, so what payops learns of a group is compared with
 * what it knew (src/app/approver-groups.ts).
 */
export interface MembershipWatch {
  /** Whether `groupId` is read again as soon as Slack says it changed. */
  watches(groupId: string): boolean;
  /**
   * `groupId`'s members as a read begun at `readAt` (the clock's ms) found them. Must not throw
   * or wait: it is called on the approval path, before the read's answer is used.
   */
  learnt(groupId: string, members: readonly string[], readAt: number): void;
}

export type AccessDecision =
  | { allowed: true }
  | { allowed: false; reason: 'not_member' | 'directory_unavailable'; role: RoleMembers };

interface CachedGroup {
  members: ReadonlySet<string>;
  readAt: number;
}

/**
 * How recent a "fresh" answer is. Slack allows about 20 `usergroups.users.list` calls a
 * minute: a batch of approvals shares one read per group every few seconds instead of being
 * refused, and a removal Slack's change event did not announce is seen within this long.
 */
export const FRESH_MS = 5_000;

export class AccessControl {
  readonly #directory: GroupDirectory;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #watch: MembershipWatch | undefined;
  readonly #cache = new Map<string, CachedGroup>();
  readonly #forgottenAt = new Map<string, number>();
  /** A read under way, shared by the checks it is recent enough for. */
  readonly #pending = new Map<
    string,
    { startedAt: number; members: Promise<ReadonlySet<string>> }
  >();

  constructor(
    directory: GroupDirectory,
    options: { ttlMs?: number; now?: () => number; watch?: MembershipWatch } = {},
  ) {
    this.#directory = directory;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#watch = options.watch;
  }

  /**
   * Whether `userId` holds `role`. `fresh` wants the directory's answer of the last FRESH_MS
   * rather than the cached minute's: for the decisions that move money, where a removal must
   * take effect at once.
   */
  async check(
    role: RoleMembers,
    userId: string,
    options: { fresh?: boolean } = {},
  ): Promise<AccessDecision> {
    if (role.users.has(userId)) return { allowed: true };
    const maxAgeMs = options.fresh ? Math.min(FRESH_MS, this.#ttlMs) : this.#ttlMs;
    let unavailable = false;
    for (const groupId of role.groups) {
      try {
        if ((await this.#groupMembers(groupId, maxAgeMs)).has(userId)) return { allowed: true };
      } catch {
        unavailable = true;
      }
    }
    return { allowed: false, reason: unavailable ? 'directory_unavailable' : 'not_member', role };
  }

  /**
   * Drops a group's cached members, e.g. when Slack reports a membership change: a read already
   * under way may predate the change, so it is neither shared nor kept.
   */
  forget(groupId: string): void {
    this.#cache.delete(groupId);
    this.#pending.delete(groupId);
    this.#forgottenAt.set(groupId, this.#now());
  }

  /**
   * Slack says `groupId` changed: its cached members are dropped, and a watched group is read
   * at once, so that its change is learnt now rather than at the next check. That read answers
   * the checks made while it is under way, and is not kept: a check after it asks the directory
   * again, as after any forget. Rejects when the directory cannot answer.
   */
  async changed(groupId: string): Promise<void> {
    this.forget(groupId);
    if (this.#watch?.watches(groupId)) await this.#groupMembers(groupId, 0, { keep: false });
  }

  /**
   * The group's members as read at most `maxAgeMs` ago (a read under way counts from its start);
   * a new read is cached unless `keep` is false.
   */
  async #groupMembers(
    groupId: string,
    maxAgeMs: number,
    { keep = true } = {},
  ): Promise<ReadonlySet<string>> {
    const now = this.#now();
    const cached = this.#cache.get(groupId);
    if (cached && now - cached.readAt < maxAgeMs) return cached.members;
    const pending = this.#pending.get(groupId);
    if (pending && now - pending.startedAt < maxAgeMs) return pending.members;
    const read = {
      startedAt: now,
      members: this.#directory.members(groupId).then((list) => {
        this.#watch?.learnt(groupId, list, now);
        const members: ReadonlySet<string> = new Set(list);
        const latest = this.#cache.get(groupId);
        const forgotten = this.#forgottenAt.get(groupId) ?? Number.NEGATIVE_INFINITY;
        if (keep && now > forgotten && (!latest || latest.readAt <= now)) {
          this.#cache.set(groupId, { members, readAt: now });
        }
        return members;
      }),
    };
    read.members
      .finally(() => {
        if (this.#pending.get(groupId) === read) this.#pending.delete(groupId);
      })
      .catch(() => undefined);
    this.#pending.set(groupId, read);
    return read.members;
  }
}
