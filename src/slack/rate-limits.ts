import type { RateBucket, RateBucketsPort } from '../app/outbox-port.ts';

/**
 * Slack's published Web API limits for the methods the outbox calls, kept to by payops itself so
 * that a burst waits in the outbox instead of meeting 429s. Token buckets: `perMinute` refill,
 * at most `burst` at once. `chat.postMessage` is limited per channel, and per workspace.
 */
export interface Limit {
  perMinute: number;
  burst: number;
}

/** Tier 3 (chat.update, conversations.*), Tier 4 (chat.postEphemeral, views.publish), postMessage ~1/s. */
export const SLACK_LIMITS = {
  postMessagePerChannel: { perMinute: 60, burst: 2 },
  postMessagePerWorkspace: { perMinute: 300, burst: 10 },
  'chat.update': { perMinute: 50, burst: 5 },
  'chat.postEphemeral': { perMinute: 100, burst: 10 },
  'conversations.history': { perMinute: 50, burst: 5 },
  'conversations.replies': { perMinute: 50, burst: 5 },
  'views.publish': { perMinute: 100, burst: 10 },
} as const satisfies Record<string, Limit>;

/**
 * The share of each limit payops uses: a call reaches Slack a little after its token is taken,
 * and a few ms of jitter between two calls must not make the second one early.
 */
const PACE = 0.95;

export type LimitedCall =
  | { method: 'chat.postMessage'; channel: string }
  | {
      method:
        | 'chat.update'
        | 'chat.postEphemeral'
        | 'conversations.history'
        | 'conversations.replies'
        | 'views.publish';
    };

/**
 * Slack's limits for the outbox's calls, as token buckets kept in the store (shared by every
 * replica). `scale` multiplies every limit alike: 1 for Slack itself, more only against a Slack
 * emulation scaled the same way.
 */
export class SlackRateLimiter {
  readonly #buckets: RateBucketsPort;
  readonly #scale: number;

  constructor(buckets: RateBucketsPort, scale = 1) {
    this.#buckets = buckets;
    this.#scale = scale;
  }

  /** Takes a token for each call from each of its buckets (0), or none (the ms to wait). */
  take(calls: readonly LimitedCall[]): Promise<number> {
    return this.#buckets.take(calls.flatMap((call) => this.#bucketsOf(call)));
  }

  /** Slack answered 429: nothing of these kinds goes for `retryAfterMs`. */
  block(calls: readonly LimitedCall[], retryAfterMs: number): Promise<void> {
    return this.#buckets.block(this.keysOf(calls), retryAfterMs);
  }

  /** The names of the buckets these calls draw on. */
  keysOf(calls: readonly LimitedCall[]): string[] {
    return calls.flatMap((call) => this.#bucketsOf(call).map((bucket) => bucket.key));
  }

  /** The buckets a call draws on: its method's; for chat.postMessage, its channel's and the workspace's. */
  #bucketsOf(call: LimitedCall): RateBucket[] {
    const bucket = (key: string, limit: Limit): RateBucket => ({
      key,
      capacity: Math.max(1, limit.burst * this.#scale),
      perSecond: (limit.perMinute * this.#scale * PACE) / 60,
    });
    if (call.method === 'chat.postMessage') {
      return [
        bucket(`chat.postMessage:${call.channel}`, SLACK_LIMITS.postMessagePerChannel),
        bucket('chat.postMessage', SLACK_LIMITS.postMessagePerWorkspace),
      ];
    }
    return [bucket(call.method, SLACK_LIMITS[call.method])];
  }
}
