import type { Database } from './database.ts';

/**
 * Who looks at payops's Home tab, and whose Home is out of date. The tables' triggers (migration
 * 0011) append each changed request to `home_changes`; `absorbChanges` turns those into stale
 * Homes of the people concerned, and a Home is claimed by one process at a time to be redrawn.
 */

/**
 * The changes appended so far, consumed (rows another process is taking are skipped), and the
 * Homes they concern marked stale: a request's requester and everyone who approved or decided
 * it, every approver (their queue holds every pending request), and for the kill switch
 * everyone.
 */
const ABSORB_CHANGES = `
  with taken as (
    delete from home_changes where id in (
      select id from home_changes order by id limit $1 for update skip locked)
    returning request_id
  ), concerned as (
    select r.requester_id as user_id from payment_requests r join taken t on t.request_id = r.id
    union select r.decided_by from payment_requests r join taken t on t.request_id = r.id
    union select a.approver_id from approvals a join taken t on t.request_id = a.request_id
  ), marked as (
    update home_viewers v set stale = true
     where not v.stale and (
       v.user_id in (select user_id from concerned)
       or (v.is_approver and exists (select 1 from taken))
       or exists (select 1 from taken where request_id is null))
    returning v.user_id
  )
  select (select count(*) from taken) as taken, (select count(*) from marked) as marked`;

/**
 * Stale Homes not drawn in the last $1 ms and not being drawn, claimed for $3 ms: those of people
 * who may approve first (a payment waits on them), then the oldest drawing first. The change that
 * made one stale is drawn by whoever takes it, and one arriving meanwhile marks it stale again.
 */
const CLAIM_STALE = `
  update home_viewers set stale = false,
         publishing_until = now() + make_interval(secs => $3::double precision / 1000)
   where user_id in (
     select user_id from home_viewers
      where stale and (publishing_until is null or publishing_until < now())
        and (published_at is null
             or published_at <= now() - make_interval(secs => $1::double precision / 1000))
      order by is_approver desc, published_at nulls first
      limit $2 for update skip locked)
  returning user_id`;

export class HomeStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * `userId` opened their Home, and whether they may approve as found now: it is drawn in its
   * turn, at most once per interval like any other, so opening it again jumps no queue.
   */
  async opened(userId: string, isApprover: boolean): Promise<void> {
    await this.#db.query(
      `insert into home_viewers (user_id, is_approver) values ($1, $2)
       on conflict (user_id) do update set stale = true, is_approver = excluded.is_approver`,
      [userId, isApprover],
    );
  }

  /** Marks the Homes concerned by up to `limit` changes; resolves with how many it took. */
  async absorbChanges(limit: number): Promise<number> {
    const [row] = await this.#db.query<{ taken: unknown }>(ABSORB_CHANGES, [limit]);
    return Number(row?.taken ?? 0);
  }

  /** Up to `limit` stale Homes, each drawn at most once per `minIntervalMs`, claimed for `leaseMs`. */
  async claimStale(limit: number, minIntervalMs: number, leaseMs: number): Promise<string[]> {
    const rows = await this.#db.query<{ user_id: string }>(CLAIM_STALE, [
      minIntervalMs,
      limit,
      leaseMs,
    ]);
    return rows.map((row) => row.user_id);
  }

  /** Drawn: whether they are an approver, as found now, decides which changes concern them. */
  async published(userId: string, isApprover: boolean): Promise<void> {
    await this.#db.query(
      `update home_viewers set published_at = now(), publishing_until = null, is_approver = $2
        where user_id = $1`,
      [userId, isApprover],
    );
  }

  /**
   * Not drawn this time: stale again, for a later pass — at once when it only waited for a
   * token, after the usual interval when drawing it failed (`retryLater`).
   */
  async release(userId: string, retryLater: boolean): Promise<void> {
    await this.#db.query(
      `update home_viewers set stale = true, publishing_until = null,
              published_at = case when $2::boolean then now() else published_at end
        where user_id = $1`,
      [userId, retryLater],
    );
  }

  /** Not to be drawn again until they open it (Slack refuses their Home for good). */
  async forget(userId: string): Promise<void> {
    await this.#db.query('delete from home_viewers where user_id = $1', [userId]);
  }
}
