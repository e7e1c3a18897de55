import type { StatusOutcome } from '../domain/follow.ts';
import type { ClaimedFollowUp, FollowLook } from '../store/follow-store.ts';

/**
 * The follow-ups of submitted writes as the follower (src/app/follow-up.ts) sees them; the store
 * keeps them (src/store/follow-store.ts). A change recorded here carries its Slack messages (the
 * thread's notice, the card's redraw), written by the store with it: only the process whose write
 * wins tells it.
 */

export type { ClaimedFollowUp, FollowLook } from '../store/follow-store.ts';

/** A record's status seen to change from `from` to `to`; a success is watched for `returnWindowMs`. */
export interface StatusChange {
  from: string | undefined;
  to: string;
  outcome: StatusOutcome | undefined;
  providerId: string | undefined;
  returnWindowMs: number;
}

export interface FollowStorePort {
  /** Every open follow-up of each list with one due, claimed by `claimedBy` for `leaseMs`. */
  claimDue(
    claimedBy: string,
    leaseMs: number,
    intervalMs: number,
    limit: number,
  ): Promise<ClaimedFollowUp[]>;
  /** A new status, told; false when another process told it first (or it is no longer followed). */
  recordChange(requestId: number, change: StatusChange): Promise<boolean>;
  /** Those of `requestIds` listed before and missing now, each told once. */
  recordMissing(requestIds: readonly number[]): Promise<number[]>;
  /** Stops following at a failure status already known. */
  stopAtFinal(requestId: number, status: string): Promise<boolean>;
  /** Watches a success for a return for `returnWindowMs`. */
  startWatching(requestId: number, status: string, returnWindowMs: number): Promise<boolean>;
  /** Stops the successes watched to the end of their return window; resolves with them. */
  stopWatched(): Promise<number[]>;
  /** Settles `claimedBy`'s claims after a look, scheduling the next one. */
  recordLooks(claimedBy: string, looks: readonly FollowLook[], intervalMs: number): Promise<void>;
  /** Stops what has been followed for `followForMs`; resolves with those requests. */
  stopOverdue(followForMs: number): Promise<number[]>;
}
