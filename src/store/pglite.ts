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
import { PGlite, parse as pgParse, protocol, type Transaction } from '@electric-sql/pglite';
import { firstMessage, forkModule } from '../lib/run-module.ts';
import type { Database, Queryable } from './database.ts';

/**
 * Embedded PostgreSQL (PGlite) in a folder. Two processes opening one PGlite folder silently
 * lose committed rows, so the folder is locked for this process alone; PGlite also runs with
 * fsync off (safe against a process crash, not an OS crash): use PostgreSQL in production.
 */

/** Measured: RSS 863 MB with PGlite's defaults, 745 MB with these (2,000-row workload). */
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
  const prepared = preparedQuery(db);
  return {
    engine: 'pglite',
    query: (sql, params = []) => inTurn(() => prepared(sql, params)),
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

/**
 * PGlite's `query` parses, describes and plans its statement at every call: 400 µs of the engine
 * thread for a click's read of its request, 135 µs with the statement prepared (measured, 3,000
 * reads). payops's SQL is a fixed set of texts, so each is prepared once under a name, as on
 * PostgreSQL; values are serialised and rows parsed exactly as `query` does. Statements inside a
 * transaction still go through `query` (a turn of their own is the transaction's).
 */
function preparedQuery(db: PGlite): <Row>(sql: string, params: unknown[]) => Promise<Row[]> {
  const { serialize } = protocol;
  const statements = new Map<string, { name: string; paramTypes: number[] }>();
  return async <Row>(sql: string, params: unknown[]) => {
    // `query` says so itself; the protocol call would fail inside PGlite's wasm instead.
    if (db.closed) throw new Error('PGlite is closed');
    let statement = statements.get(sql);
    if (statement === undefined) {
      const name = `payops_${statements.size + 1}`;
      const described = await db.execProtocol(
        bytes([
          serialize.parse({ name, text: sql }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        ]),
      );
      statement = { name, paramTypes: pgParse.parseDescribeStatementResults(described.messages) };
      statements.set(sql, statement);
    }
    const { paramTypes } = statement;
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[paramTypes[index] as number];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await db.execProtocol(
      bytes([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return (pgParse.parseResults(messages, db.parsers)[0]?.rows ?? []) as Row[];
  };
}

/** Protocol messages back to back, sent to PGlite in one call. */
function bytes(messages: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(messages.reduce((length, message) => length + message.length, 0));
  let offset = 0;
  for (const message of messages) {
    joined.set(message, offset);
    offset += message.length;
  }
  return joined;
}

/** How long statements may run back to back before the event loop gets a turn. */
const SLICE_MS = 2;

/**
 * PGlite runs a statement synchronously on the calling thread and starts the next one queued
 * at once, in a microtask: a thousand queued statements keep the event loop from any I/O until
 * the last is done (measured: 1,000 reads, 300 ms without a single timer tick), so provider
 * answers, Slack answers and connection closes all wait behind them. Here they run one at a
 * time, and after SLICE_MS of them the event loop gets a turn (then: a tick every ~1 ms).
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

/** initdb and the migrations take 3–6 s here; a child still at it after this is stuck. */
const CREATE_TIMEOUT_MS = 120_000;

/**
 * A fresh folder is created (initdb) and brought to the current schema in a short-lived child
 * process: initdb leaves hundreds of MB of wasm memory in the process that runs it, for good —
 * even in a worker thread that has ended. Measured, RSS idle after a first start: 697 MB with
 * initdb in the process, 359 MB with it in a worker thread, 236 MB with it in a child process
 * (a restart on the same folder: 234–262 MB).
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
