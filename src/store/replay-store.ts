import type { Database } from './database.ts';

/**
 * A request's signature is kept this long after its timestamp: past Bolt's five minutes and
 * payops's allowance for a clock ahead, with room for replicas' clocks to differ.
 */
const KEEP_SEC = 10 * 60;
/** Old rows are deleted by one request now and then, not by each. */
const PRUNE_EVERY_MS = 60_000;

/** A signature waiting for the insert that decides whether it is new. */
interface PendingSignature {
  signature: string;
  timestampSec: number;
  decided: (firstSeen: boolean) => void;
  failed: (error: unknown) => void;
}

/**
 * Signed Slack requests already taken, by signature, in the database all replicas share. Its
 * verdict is awaited before any work: give it a pool of its own, so that it never waits behind
 * the work of a burst (see `openPostgres`'s `max`).
 */
export class ReplayStore {
  readonly #db: Database;
  #pruneAfter = 0;
  /** Signatures that came while an insert was on its way: the next insert takes them all. */
  #pending: PendingSignature[] = [];
  #inserting = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * True the first time a signature is seen, false for a replay: an insert that keeps the first.
   * The signatures a burst brings while one insert is on its way go in the next one together, so
   * a burst's requests, each sent to the database before its ack, cost a few statements, not one
   * each.
   */
  async firstSeen(signature: string, timestampSec: number): Promise<boolean> {
    if (Date.now() >= this.#pruneAfter) {
      this.#pruneAfter = Date.now() + PRUNE_EVERY_MS;
      await this.#db.query('delete from slack_request_replays where request_ts < $1', [
        Math.floor(Date.now() / 1000) - KEEP_SEC,
      ]);
    }
    return new Promise((decided, failed) => {
      this.#pending.push({ signature, timestampSec, decided, failed });
      this.#insertPending();
    });
  }

  #insertPending(): void {
    if (this.#inserting || this.#pending.length === 0) return;
    this.#inserting = true;
    const batch = this.#pending;
    this.#pending = [];
    this.#db
      .query<{ signature: string }>(
        `insert into slack_request_replays (signature, request_ts)
         select * from unnest($1::text[], $2::bigint[])
         on conflict (signature) do nothing returning signature`,
        [
          batch.map((pending) => pending.signature),
          // Whole seconds, as Slack sends them: no request's value can fail the others' insert.
          batch.map((pending) => Math.floor(pending.timestampSec)),
        ],
      )
      .then(
        (rows) => {
          const inserted = new Set(rows.map((row) => row.signature));
          // The same signature twice in one insert is kept once: only the first of them is new.
          for (const pending of batch) pending.decided(inserted.delete(pending.signature));
        },
        (error: unknown) => {
          for (const pending of batch) pending.failed(error);
        },
      )
      .finally(() => {
        this.#inserting = false;
        this.#insertPending();
      });
  }
}

/**
 * Bolt refuses a request whose timestamp is older than this, so its signature can never pass
 * again: what may be forgotten first when memory is full.
 */
const REPLAYABLE_SEC = 5 * 60;

/**
 * How many signatures memory holds at most (`v0=` and 64 hex digits each: about 7 MB). Only
 * requests signed with the app's secret get in, each once: this is Slack sending over 80 requests
 * a second for ten minutes, far beyond a payments workspace.
 */
export const MAX_REMEMBERED_SIGNATURES = 50_000;

/** Memory is full of signatures that could still be replayed: refused (503), never forgotten. */
export class ReplayMemoryFull extends Error {
  constructor() {
    super('every remembered Slack signature is still replayable: the request is refused');
    this.name = 'ReplayMemoryFull';
  }
}

/**
 * The same, in this process's memory: asked before every ack, and all there is on the embedded
 * store, which one process alone may hold (its folder is locked). What it forgets is a
 * restart's worth.
 */
export class ReplaysInMemory {
  readonly #seen = new Map<string, number>();
  readonly #capacity: number;
  #pruneAfter = 0;

  constructor(capacity = MAX_REMEMBERED_SIGNATURES) {
    this.#capacity = capacity;
  }

  async firstSeen(signature: string, timestampSec: number): Promise<boolean> {
    const nowSec = Date.now() / 1000;
    if (Date.now() >= this.#pruneAfter) {
      this.#pruneAfter = Date.now() + PRUNE_EVERY_MS;
      this.#forgetOlderThan(nowSec - KEEP_SEC);
    }
    if (this.#seen.has(signature)) return false;
    if (this.#seen.size >= this.#capacity) {
      // Safe: past Slack's five-minute window Bolt refuses the request, whatever is remembered.
      this.#forgetOlderThan(nowSec - REPLAYABLE_SEC);
      if (this.#seen.size >= this.#capacity) throw new ReplayMemoryFull();
    }
    this.#seen.set(signature, timestampSec);
    return true;
  }

  #forgetOlderThan(sec: number): void {
    for (const [seen, at] of this.#seen) if (at < sec) this.#seen.delete(seen);
  }
}
