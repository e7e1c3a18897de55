/**
 * Slack's published Web API limits for the methods the outbox calls, kept to by payops itself so
 * that a burst waits in the outbox instead of meeting 429s. Token buckets: `perMinute` refill,
 * at most `burst` at once. `chat.postMessage` is limited per channel, and per workspace.
 */
export interface Limit {
  perMinute: number;
  burst: number;
}

/** Tier 3 (chat.update, conversations.*), Tier 4 (chat.postEphemeral), postMessage ~1/s. */
export const SLACK_LIMITS = {
  postMessagePerChannel: { perMinute: 60, burst: 1 },
  postMessagePerWorkspace: { perMinute: 300, burst: 10 },
  'chat.update': { perMinute: 50, burst: 5 },
  'chat.postEphemeral': { perMinute: 100, burst: 10 },
  'conversations.history': { perMinute: 50, burst: 5 },
  'conversations.replies': { perMinute: 50, burst: 5 },
} as const satisfies Record<string, Limit>;

export type LimitedCall =
  | { method: 'chat.postMessage'; channel: string }
  | {
      method:
        | 'chat.update'
        | 'chat.postEphemeral'
        | 'conversations.history'
        | 'conversations.replies';
    };

interface Bucket {
  tokens: number;
  at: number;
  /** Slack said to wait (Retry-After): nothing goes before this. */
  blockedUntil: number;
}

export class SlackRateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #scale: number;
  readonly #now: () => number;

  /** `scale` multiplies every limit alike (a rehearsal against a scaled Slack emulation). */
  constructor(scale = 1, now: () => number = Date.now) {
    this.#scale = scale;
    this.#now = now;
  }

  /**
   * Takes a token for each call from each of its buckets and returns 0, or takes none and
   * returns how many ms until they could all go.
   */
  take(calls: readonly LimitedCall[]): number {
    const now = this.#now();
    const keys = calls.flatMap(keysOf);
    let waitMs = 0;
    for (const [key, limit] of keys) {
      const bucket = this.#refill(key, limit, now);
      const rate = (limit.perMinute * this.#scale) / 60_000;
      const tokenIn = bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) / rate;
      waitMs = Math.max(waitMs, tokenIn, bucket.blockedUntil - now);
    }
    if (waitMs > 0) return Math.ceil(waitMs);
    for (const [key, limit] of keys) this.#refill(key, limit, now).tokens -= 1;
    return 0;
  }

  /** Slack answered 429: nothing of these kinds goes for `retryAfterMs`. */
  block(calls: readonly LimitedCall[], retryAfterMs: number): void {
    const now = this.#now();
    for (const [key, limit] of calls.flatMap(keysOf)) {
      const bucket = this.#refill(key, limit, now);
      bucket.blockedUntil = Math.max(bucket.blockedUntil, now + retryAfterMs);
    }
  }

  #refill(key: string, limit: Limit, now: number): Bucket {
    const burst = Math.max(1, limit.burst * this.#scale);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: now, blockedUntil: 0 };
      this.#buckets.set(key, bucket);
    }
    const rate = (limit.perMinute * this.#scale) / 60_000;
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    return bucket;
  }
}

function keysOf(call: LimitedCall): Array<[string, Limit]> {
  if (call.method === 'chat.postMessage') {
    return [
      [`chat.postMessage:${call.channel}`, SLACK_LIMITS.postMessagePerChannel],
      ['chat.postMessage', SLACK_LIMITS.postMessagePerWorkspace],
    ];
  }
  return [[call.method, SLACK_LIMITS[call.method]]];
}
