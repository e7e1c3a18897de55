/**
 * The Slack outbox as the workflow and the dispatcher see it: every Slack message the workflow
 * causes is a delivery, written with the state change that causes it (by the store) and sent
 * by the dispatcher (src/slack/outbox.ts).
 */

export type DeliveryKind = 'card' | 'card_update' | 'notice' | 'confirmation';
export type DeliveryState = 'waiting' | 'sending' | 'delivered' | 'failed' | 'superseded';

/** Where the requester's confirmation goes: a command's response_url, or an ephemeral in a channel (a form has no response_url). */
export type AnswerTarget = { responseUrl: string } | { channelId: string; userId: string };

/** A confirmation's target as stored. */
export interface DeliveryTarget {
  responseUrl?: string;
  channelId?: string;
  userId?: string;
  /** Why the card could not be posted (a `card_failed` confirmation). */
  cause?: string;
}

/** A delivery ready to go, with where its request's card is (once posted). */
export interface Delivery {
  id: number;
  requestId: number;
  kind: DeliveryKind;
  /** What a notice tells: a status, or reconciled / resolved / late_outcome / card_failed. */
  event: string | undefined;
  target: DeliveryTarget | undefined;
  attempts: number;
  /** A post that may have reached Slack: looked for before posting again. */
  maybePosted: boolean;
  enqueuedAt: string;
  giveUpAt: string;
  channelId: string | undefined;
  messageTs: string | undefined;
}

/** A delivery as `/pay request N` shows it. */
export interface DeliveryStatus {
  id: number;
  kind: DeliveryKind;
  event: string | undefined;
  state: DeliveryState;
  attempts: number;
  dueAt: string;
  deliveredAt: string | undefined;
  lastError: string | undefined;
}

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

/** One of Slack's limits as a token bucket: at most `capacity` at once, `perSecond` refill. */
export interface RateBucket {
  key: string;
  capacity: number;
  perSecond: number;
}

/** Token buckets shared by every payops process on the store (Slack limits the app, not a process). */
export interface RateBucketsPort {
  /** Takes a token from each bucket and resolves 0, or takes none and resolves the ms to wait. */
  take(buckets: readonly RateBucket[]): Promise<number>;
  /** Nothing from these buckets for `ms` (Slack's Retry-After). */
  block(keys: readonly string[], ms: number): Promise<void>;
}
