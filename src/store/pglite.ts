import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { firstMessage, startModuleWorker } from '../lib/module-worker.ts';
import type { Database, Queryable } from './database.ts';

/**
 * Embedded PostgreSQL (PGlite) in a folder. Two processes opening one PGlite folder silently
 * lose committed rows, so the folder is locked for this process alone; PGlite also runs with
 * fsync off (safe against a process crash, not an OS crash): use PostgreSQL in production.
 */

/** Measured: RSS 863 MB with PGlite's defaults, 745 MB with these (2,000-row workload). */
const SMALL_MEMORY = ['shared_buffers=16MB', 'wal_buffers=1MB'];

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
    if (pgdata && !existsSync(join(pgdata, 'PG_VERSION'))) await initialiseApart(pgdata);
    db = await PGlite.create(pgdata, { postgresqlconf: SMALL_MEMORY.join('\n') });
  } catch (error) {
    unlock();
    throw error;
  }
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
    ...queryable(db),
    transaction: (work) => db.transaction((tx) => work(queryable(tx))),
    async ping() {
      return !db.closed;
    },
    async close() {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
  };
}

/**
 * A fresh folder is initialised in a worker thread of its own: initdb leaves several hundred MB
 * of wasm memory in the process that runs it (measured: 697 MB after creating a folder against
 * 231 MB after opening the same folder in a new process), and a thread gives it all back.
 */
async function initialiseApart(pgdata: string): Promise<void> {
  const worker = startModuleWorker(import.meta.url, 'pglite-init-worker', {
    workerData: { pgdata, config: SMALL_MEMORY.join('\n') },
  });
  let said: unknown;
  try {
    said = await firstMessage(worker);
  } catch (error) {
    throw new Error(`could not initialise the embedded store in ${pgdata}`, { cause: error });
  } finally {
    await worker.terminate();
  }
  if (said !== 'initialised') {
    throw new Error(
      `could not initialise the embedded store in ${pgdata}: it said ${String(said)}`,
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
