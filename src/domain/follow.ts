import type { FollowLookError } from './list-findings.ts';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type OperationId,
  type OperationSpec,
} from './operations.ts';

/**
 * Following a submitted write to its final state. The provider sends no webhooks (spec part 6):
 * what happens after "submitted" is learnt only by reading the list where its record shows.
 */

/** What payops has learnt of a followed write's record at the provider. */
export interface ProviderFollow {
  providerId: string | undefined;
  /** The provider's own word for the record's status, as last seen. */
  status: string | undefined;
  /** Every status seen, oldest first. */
  history: ProviderStatusSeen[];
  startedAt: string;
  /**
   * After a success status: until when it is still followed, for a return or reversal
   * (PAYOPS_RETURN_WINDOW from the success).
   */
  watchUntil?: string | undefined;
  lastCheckedAt: string | undefined;
  /** When a read of the list last showed the record. */
  lastListedAt: string | undefined;
  /** When a record once listed was first missing from its list (told once). */
  disappearedAt: string | undefined;
  /** Why the last look learnt nothing: a failed read, several records that could be it. */
  lastError: FollowLookError | undefined;
  stoppedReason: FollowStop | undefined;
  stoppedAt: string | undefined;
}

/**
 * `final_status`: a failure status was seen; `time_limit`: PAYOPS_FOLLOW_FOR passed with neither
 * a success nor a failure; `return_window`: PAYOPS_RETURN_WINDOW passed after a success.
 */
export type FollowStop = 'final_status' | 'time_limit' | 'return_window';

/** What a status says of the money: it reached its destination, or did not (or came back). */
export type StatusOutcome = 'success' | 'failure';

export interface ProviderStatusSeen {
  status: string;
  seenAt: string;
  /** In PAYOPS_SUCCESS_STATUSES or PAYOPS_FAILURE_STATUSES. */
  outcome?: StatusOutcome;
  /** Following stopped at it (a failure). */
  final?: boolean;
}

/** Lower case; no status in both. */
export interface FollowStatuses {
  success: ReadonlySet<string>;
  failure: ReadonlySet<string>;
}

/**
 * Statuses that say the money reached its destination. A bank may still return it afterwards
 * (an ACH return comes days later): following goes on for PAYOPS_RETURN_WINDOW.
 */
export const DEFAULT_SUCCESS_STATUSES = ['completed', 'settled', 'paid'] as const;

/** Statuses that say the money did not reach its destination, or came back: following stops. */
export const DEFAULT_FAILURE_STATUSES = [
  'failed',
  'returned',
  'rejected',
  'cancelled',
  'canceled',
  'reversed',
  'expired',
] as const;

/** A status's outcome, compared case-insensitively; undefined for any other word. */
export function statusOutcome(status: string, statuses: FollowStatuses): StatusOutcome | undefined {
  const word = status.trim().toLowerCase();
  if (statuses.failure.has(word)) return 'failure';
  return statuses.success.has(word) ? 'success' : undefined;
}

/**
 * The writes followed, with the list each one's record shows in: those that move money. A
 * configuration (a route, a recipient) has no settlement to wait for, and its status words
 * (`active`) are in no final list: it would be read for the whole follow-up time to say nothing.
 */
export const FOLLOWED_LISTS: ReadonlyMap<OperationId, OperationId> = new Map(
  OPERATION_IDS.flatMap((id) => {
    const spec: OperationSpec = OPERATIONS[id];
    return isWrite(id) && spec.reconcileWith && spec.bodyFields.includes('amount')
      ? [[id, spec.reconcileWith] as const]
      : [];
  }),
);

/** A notice in the request's thread about its record at the provider, as the outbox stores it. */
export type FollowEvent =
  /** The n-th status seen (1-based) replaced the one before it. */
  | { kind: 'change'; seen: number }
  /** The record, listed before, is missing from its list. */
  | { kind: 'missing' }
  /** Following stopped without a final status (the time limit). */
  | { kind: 'stopped' };

export const CHANGE_EVENT_PREFIX = 'provider_status:';
export const MISSING_EVENT = 'provider_missing';
export const STOPPED_EVENT = 'follow_stopped';

export function parseFollowEvent(event: string | undefined): FollowEvent | undefined {
  if (event === MISSING_EVENT) return { kind: 'missing' };
  if (event === STOPPED_EVENT) return { kind: 'stopped' };
  const seen = event?.startsWith(CHANGE_EVENT_PREFIX)
    ? Number(event.slice(CHANGE_EVENT_PREFIX.length))
    : NaN;
  return Number.isInteger(seen) && seen > 0 ? { kind: 'change', seen } : undefined;
}
