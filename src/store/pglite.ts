import { once } from 'node:events';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { firstMessage, forkModule } from '../lib/run-module.ts';
import type { Database, Queryable } from './database.ts';

/**
 * Embedded PostgreSQL (PGlite) in a folder, locked for one process (two on one folder lose
 * committed rows). Its mechanisms are described in docs/architecture.md, "The store".
 */

/** Smaller buffers than PGlite's defaults: less memory for a small team's data. */
export const PGLITE_CONFIG = ['shared_buffers=16MB', 'wal_buffers=1MB'].join('\n');

export class DataDirLocked extends Error {
  constructor(dataDir: string, pid: string) {
    super(
      `The data folder ${dataDir} is in use by another payops process (pid ${pid}). Only one process may use an embedded store; stop the other one, or use PostgreSQL (DATABASE_URL) to run several.`,
    );
    this.name = 'DataDirLocked';
  }
}

/** `dataDir` undefined: in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  const pgdata = dataDir ? join(dataDir, 'pgdata') : undefined;
  let db: PGlite;
  try {
    if (pgdata && !existsSync(join(pgdata, 'PG_VERSION'))) await createApart(pgdata);
    db = await PGlite.create(pgdata, { postgresqlconf: PGLITE_CONFIG });
  } catch (error) {
    unlock();
    throw error;
  }
  return pgliteDatabase(db, unlock);
}

/** `db` as a Database; `afterClose` runs once it is closed. */
export function pgliteDatabase(db: PGlite, afterClose: () => void = () => {}): Database {
  const inTurn = takingTurns();
  const queryable = (target: PGlite | Transaction): Queryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await target.query<Row>(sql, params)).rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  });
  return {
    engine: 'pglite',
    query: (sql, params = []) => inTurn(() => queryable(db).query(sql, params)),
    exec: (sql) => inTurn(() => queryable(db).exec(sql)),
    // A transaction is one turn: the statements inside it go straight to PGlite.
    transaction: (work) => inTurn(() => db.transaction((tx) => work(queryable(tx)))),
    async ping() {
      return !db.closed;
    },
    // After every statement already queued, as PGlite itself would: an outcome being recorded
    // as payops stops must be written, not refused as "PGlite is closed".
    async close() {
      try {
        await inTurn(() => db.close());
      } finally {
        afterClose();
      }
    },
  };
}

/** How long statements may run back to back before the event loop gets a turn. */
const SLICE_MS = 2;

/**
 * PGlite runs statements synchronously on this thread, each queued one at once after the last:
 * here they run one at a time, and every SLICE_MS the event loop gets a turn (acks, answers).
 */
function takingTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  let queued = 0;
  let sliceStartedAt = 0;
  return <T>(work: () => Promise<T>) => {
    // A statement that finds nothing queued starts a slice: it never waits for a turn.
    if (queued === 0) sliceStartedAt = performance.now();
    queued++;
    const run = queue
      .then(async () => {
        if (performance.now() - sliceStartedAt >= SLICE_MS) {
          await nextTurn();
          sliceStartedAt = performance.now();
        }
        return work();
      })
      .finally(() => {
        queued--;
      });
    queue = run.catch(() => undefined);
    return run;
  };
}

/** A creation (initdb and migrations, seconds) still running after this is stuck. */
const CREATE_TIMEOUT_MS = 120_000;

/**
 * A fresh folder is created (initdb) and migrated in a short-lived child process: initdb keeps
 * hundreds of MB of wasm memory in the process that runs it, for good.
 */
async function createApart(pgdata: string): Promise<void> {
  // Made under a name of its own and renamed when complete: a creation cut short (a crash, a
  // kill) leaves no half-made folder where the next start would look, only this one, which is
  // ours by its name and removed here before trying again.
  const creating = `${pgdata}.creating`;
  rmSync(creating, { recursive: true, force: true });
  // Killed if it hangs: the process must fail to start, not wait for ever holding the lock.
  const child = forkModule(import.meta.url, 'pglite-create', [creating], {
    timeoutMs: CREATE_TIMEOUT_MS,
  });
  let said: unknown;
  try {
    said = await firstMessage(child);
  } catch (error) {
    throw new Error(`could not create the embedded store in ${pgdata}`, { cause: error });
  } finally {
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
  try {
    if (said !== 'created') throw new Error(String(said));
    renameSync(creating, pgdata);
  } catch (error) {
    rmSync(creating, { recursive: true, force: true });
    throw new Error(
      `could not create the embedded store in ${pgdata}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * An exclusive lock file holding our pid. A lock left by a process that is gone is taken over,
 * under a second, short-lived lock so two processes starting at once cannot both take it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'payops.lock');
  const release = () => rmSync(lockPath, { force: true });
  if (createExclusive(lockPath)) return release;
  const takeoverPath = `${lockPath}.takeover`;
  if (!createExclusive(takeoverPath)) {
    throw new Error(
      `Another process is taking over the lock of ${dataDir} right now. If none is, remove ${takeoverPath} and start again.`,
    );
  }
  try {
    const holder = readFileSync(lockPath, 'utf8').trim();
    // Our own pid in the lock is a previous life of this container's process 1, not a rival.
    if (Number(holder) !== process.pid && isAlive(Number(holder))) {
      throw new DataDirLocked(dataDir, holder);
    }
    writeFileSync(lockPath, String(process.pid));
    return release;
  } finally {
    rmSync(takeoverPath, { force: true });
  }
}

/** Creates `path` holding our pid, only if it does not exist; false when it does. */
function createExclusive(path: string): boolean {
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
