import type { Delivery, DeliveryStatus } from '../store/outbox-store.ts';
import type { RateBucket } from '../store/rate-buckets-store.ts';

/**
 * The Slack outbox as the workflow and the dispatcher see it: every Slack message the workflow
 * causes is a delivery, written with the state change that causes it (by the store) and sent
 * by the dispatcher (src/slack/outbox.ts).
 */

export type {
  AnswerTarget,
  Delivery,
  DeliveryKind,
  DeliveryState,
  DeliveryStatus,
  DeliveryTarget,
} from '../store/outbox-store.ts';
export type { RateBucket } from '../store/rate-buckets-store.ts';

/** The outbox's store. A claim is exclusive: a row another process claimed is not returned. */
export interface OutboxPort {
  due(limit: number): Promise<Delivery[]>;
  claim(ids: number[], claimedBy: string, leaseMs: number): Promise<Delivery[]>;
  /** `where`: a card's channel and ts, and whether it was found rather than posted now. */
  delivered(
    id: number,
    claimedBy: string,
    where: { channelId: string; ts: string; found: boolean } | undefined,
  ): Promise<boolean>;
  retryLater(
    id: number,
    claimedBy: string,
    afterMs: number,
    error: string,
    maybePosted: boolean,
  ): Promise<void>;
  failed(id: number, claimedBy: string, error: string): Promise<boolean>;
  /** The holder is alive and still sending these: their claims last another `leaseMs`. */
  renewClaims(claimedBy: string, ids: readonly number[], leaseMs: number): Promise<void>;
  /** Claims of dead holders back to waiting; what waits in vain, failed. */
  housekeeping(): Promise<void>;
  nextDueAt(): Promise<Date | undefined>;
  ofRequest(requestId: number): Promise<DeliveryStatus[]>;
}

/** Token buckets shared by every payops process on the store (Slack limits the app, not a process). */
export interface RateBucketsPort {
  /** Takes a token from each bucket and resolves 0, or takes none and resolves the ms to wait. */
  take(buckets: readonly RateBucket[]): Promise<number>;
  /** Nothing from these buckets for `ms` (Slack's Retry-After). */
  block(keys: readonly string[], ms: number): Promise<void>;
}
