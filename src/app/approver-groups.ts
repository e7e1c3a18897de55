import type { Logger } from '../logger.ts';
import type { GroupRead, GroupReadOutcome } from '../store/approver-groups-store.ts';
import type { MembershipWatch } from './access.ts';

/**
 * Who is in each approver group, as a fact in the audit chain: every read of an approver
 * group's members (an access check, or Slack's `subteam_members_changed`, taken as a hint to
 * read, since Slack may lose or repeat it) is compared with the members last recorded, and a
 * difference is recorded once, with its audit row and its announcement in the approvals
 * channel. A group's first read is recorded without an announcement: there is nothing to
 * compare it with, and a new install would otherwise announce every approver as added.
 */

export interface ApproverGroupsPort {
  record(read: GroupRead): Promise<GroupReadOutcome>;
}

export class ApproverGroups implements MembershipWatch {
  readonly #store: ApproverGroupsPort;
  readonly #groups: ReadonlySet<string>;
  readonly #onChange: () => void;
  readonly #logger: Logger;
  readonly #recording = new Set<Promise<void>>();

  constructor(deps: {
    store: ApproverGroupsPort;
    /** The groups whose members approve (PAYOPS_APPROVERS' `S…` ids). */
    groups: ReadonlySet<string>;
    /** A change was recorded: its announcement waits in the outbox. */
    onChange: () => void;
    logger: Logger;
  }) {
    this.#store = deps.store;
    this.#groups = deps.groups;
    this.#onChange = deps.onChange;
    this.#logger = deps.logger;
  }

  watches(groupId: string): boolean {
    return this.#groups.has(groupId);
  }

  /** Recorded in the background: the access check that read the members does not wait. */
  learnt(groupId: string, members: readonly string[], readAt: number): void {
    if (!this.watches(groupId)) return;
    const recording = this.#record({ groupId, members, readAt: new Date(readAt) }).finally(() =>
      this.#recording.delete(recording),
    );
    this.#recording.add(recording);
  }

  /** Resolves once everything learnt so far is recorded (a stop waits for it). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#recording]);
  }

  async #record(read: GroupRead): Promise<void> {
    try {
      const outcome = await this.#store.record(read);
      const changed = outcome.kind === 'changed';
      const fields = {
        groupId: read.groupId,
        outcome: outcome.kind,
        ...(changed && outcome.change),
      };
      // Every read is compared; only what is recorded is worth an info line.
      if (changed || outcome.kind === 'first_seen') {
        this.#logger.info(fields, 'approver group members compared');
      } else {
        this.#logger.debug(fields, 'approver group members compared');
      }
      if (changed) this.#onChange();
    } catch (error) {
      // The next read compares again: a change is recorded late, not lost.
      this.#logger.error(
        { err: error, groupId: read.groupId },
        'could not record an approver group’s members',
      );
    }
  }
}
