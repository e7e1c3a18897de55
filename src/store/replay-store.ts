import type { Database } from './database.ts';

/**
 * A request's signature is kept this long after its timestamp: past Bolt's five minutes and
 * payops's allowance for a clock ahead, with room for replicas' clocks to differ.
 */
const KEEP_SEC = 10 * 60;
/** Old rows are deleted by one request now and then, not by each. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Signed Slack requests already taken, by signature, in the database all replicas share. Its
 * verdict is awaited before any work: give it a pool of its own, so that it never waits behind
 * the work of a burst (see `openPostgres`'s `max`).
 */
export class ReplayStore {
  readonly #db: Database;
  #pruneAfter = 0;

  constructor(db: Database) {
    this.#db = db;
  }

  /** True the first time a signature is seen, false for a replay: one insert that keeps the first. */
  async firstSeen(signature: string, timestampSec: number): Promise<boolean> {
    if (Date.now() >= this.#pruneAfter) {
      this.#pruneAfter = Date.now() + PRUNE_EVERY_MS;
      await this.#db.query('delete from slack_request_replays where request_ts < $1', [
        Math.floor(Date.now() / 1000) - KEEP_SEC,
      ]);
    }
    const rows = await this.#db.query(
      `insert into slack_request_replays (signature, request_ts) values ($1, $2)
       on conflict (signature) do nothing returning 1`,
      [signature, timestampSec],
    );
    return rows.length === 1;
  }
}

/**
 * The same, in this process's memory: asked before every ack, and all there is on the embedded
 * store, which one process alone may hold (its folder is locked). What it forgets is a
 * restart's worth.
 */
export class ReplaysInMemory {
  readonly #seen = new Map<string, number>();
  #pruneAfter = 0;

  async firstSeen(signature: string, timestampSec: number): Promise<boolean> {
    const nowSec = Date.now() / 1000;
    if (Date.now() >= this.#pruneAfter) {
      this.#pruneAfter = Date.now() + PRUNE_EVERY_MS;
      for (const [seen, at] of this.#seen) if (at < nowSec - KEEP_SEC) this.#seen.delete(seen);
    }
    if (this.#seen.has(signature)) return false;
    this.#seen.set(signature, timestampSec);
    return true;
  }
}
