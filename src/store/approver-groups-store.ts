import {
  APPROVER_GROUP_CHANGED,
  type ApproverGroupChange,
  changesMembers,
  groupChange,
} from '../domain/approver-group-change.ts';
import type { Database } from './database.ts';
import { enqueueAnnouncement } from './outbox-store.ts';
import { audit } from './requests/audit.ts';

/**
 * The members of each approver group as payops last learnt them (migration 0019). A read that
 * differs is recorded, audited and announced in one transaction holding the group's row lock:
 * of two replicas learning the same change, one records it and the other then finds it recorded.
 */

/** A group's members as one read of Slack found them. */
export interface GroupRead {
  groupId: string;
  members: readonly string[];
  /** When the read began: a read begun before the one recorded is older news. */
  readAt: Date;
}

export type GroupReadOutcome =
  /** The group had no record: its members are recorded, with nothing to compare or announce. */
  | { kind: 'first_seen' }
  | { kind: 'unchanged' }
  /** It differs from a record made from a later read: not a change, an old answer. */
  | { kind: 'outdated' }
  | { kind: 'changed'; change: ApproverGroupChange };

export class ApproverGroupsStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async record(read: GroupRead): Promise<GroupReadOutcome> {
    const members = [...new Set(read.members)].sort();
    // Most reads find what is recorded: one look, without a lock or a write.
    const [known] = await this.#db.query<{ members: string[] }>(
      'select members from approver_groups where group_id = $1',
      [read.groupId],
    );
    if (known && sameMembers(known.members, members)) return { kind: 'unchanged' };
    const readAt = read.readAt.toISOString();
    return this.#db.transaction(async (tx) => {
      const created = await tx.query(
        `insert into approver_groups (group_id, members, read_at) values ($1, $2, $3)
         on conflict (group_id) do nothing returning group_id`,
        [read.groupId, members, readAt],
      );
      if (created.length > 0) return { kind: 'first_seen' };
      const [row] = await tx.query<{ members: string[]; newer: boolean }>(
        `select members, read_at >= $2::timestamptz as newer
           from approver_groups where group_id = $1 for update`,
        [read.groupId, readAt],
      );
      const change = groupChange(read.groupId, row?.members ?? [], members);
      if (!changesMembers(change)) return { kind: 'unchanged' };
      if (row?.newer) return { kind: 'outdated' };
      await tx.query(
        `update approver_groups set members = $2, read_at = $3, changed_at = now()
          where group_id = $1`,
        [read.groupId, members, readAt],
      );
      await audit(tx, {
        requestId: undefined,
        actor: 'payops',
        event: APPROVER_GROUP_CHANGED,
        detail: { ...change },
      });
      await tx.query(enqueueAnnouncement('$1', '$2::jsonb'), [
        APPROVER_GROUP_CHANGED,
        JSON.stringify(change),
      ]);
      return { kind: 'changed', change };
    });
  }
}

function sameMembers(recorded: readonly string[], read: readonly string[]): boolean {
  return recorded.length === read.length && recorded.every((member, i) => member === read[i]);
}
