import type { Database } from './database.ts';

/** One of Slack's limits as a token bucket: at most `capacity` at once, `perSecond` refill. */
export interface RateBucket {
  key: string;
  capacity: number;
  perSecond: number;
}

/**
 * Slack's limits as token buckets in SQL, so that several replicas keep to them together. A
 * take is one statement: each bucket refilled by the database's clock, then a token taken from
 * every one of them, or from none. Rows are locked in key order, so two takes never deadlock.
 */
const TAKE = `
  with want as (
    select * from unnest($1::text[], $2::float8[], $3::float8[]) as w(key, capacity, per_sec)
  ), current as (
    select b.key, w.per_sec, b.blocked_until,
           least(w.capacity, b.tokens + extract(epoch from (now() - b.at)) * w.per_sec) as tokens
      from slack_rate_buckets b join want w on w.key = b.key
     order by b.key
       for update of b
  ), verdict as (
    select bool_and(tokens >= 1 and blocked_until <= now()) as go,
           max(greatest(case when tokens >= 1 then 0 else (1 - tokens) / per_sec * 1000 end,
                        extract(epoch from (blocked_until - now())) * 1000)) as wait_ms
      from current
  ), taken as (
    update slack_rate_buckets b
       set tokens = current.tokens - case when verdict.go then 1 else 0 end, at = now()
      from current, verdict
     where b.key = current.key
    returning b.key
  )
  select go, wait_ms, (select count(*) from taken) as buckets from verdict`;

const CREATE = `
  insert into slack_rate_buckets (key, tokens, at)
  select key, capacity, now() from unnest($1::text[], $2::float8[]) as w(key, capacity)
  on conflict (key) do nothing`;

/** Locks its rows in key order too, as TAKE does, so the two never deadlock. */
const BLOCK = `
  with locked as (
    select key from slack_rate_buckets where key = any($1::text[]) order by key for update
  )
  update slack_rate_buckets b set blocked_until = greatest(b.blocked_until,
         now() + make_interval(secs => $2::double precision / 1000))
    from locked where b.key = locked.key`;

export class RateBucketsStore {
  readonly #db: Database;
  /** Buckets this process knows exist (created full on first use). */
  readonly #known = new Set<string>();

  constructor(db: Database) {
    this.#db = db;
  }

  async take(buckets: readonly RateBucket[]): Promise<number> {
    if (buckets.length === 0) return 0;
    const unknown = buckets.filter((bucket) => !this.#known.has(bucket.key));
    if (unknown.length > 0) {
      await this.#db.query(CREATE, [unknown.map((b) => b.key), unknown.map((b) => b.capacity)]);
      for (const bucket of unknown) this.#known.add(bucket.key);
    }
    const [row] = await this.#db.query<{ go: boolean; wait_ms: unknown; buckets: unknown }>(TAKE, [
      buckets.map((b) => b.key),
      buckets.map((b) => b.capacity),
      buckets.map((b) => b.perSecond),
    ]);
    if (Number(row?.buckets ?? 0) !== buckets.length) {
      // A bucket row was removed under us: made again next time.
      this.#known.clear();
      return 100;
    }
    return row?.go ? 0 : Math.max(1, Math.ceil(Number(row?.wait_ms ?? 0)));
  }

  async block(keys: readonly string[], ms: number): Promise<void> {
    if (keys.length === 0) return;
    await this.#db.query(BLOCK, [keys, ms]);
  }
}
