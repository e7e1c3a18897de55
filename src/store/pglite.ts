import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openAsBlob,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { firstMessage, forkModule } from '../lib/run-module.ts';
import type { Logger } from '../logger.ts';
import type { Database, Queryable } from './database.ts';
import { type FolderLock, lockDataDir, OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from './folder-lock.ts';
import { findTemplate, TEMPLATES } from './pglite-template.ts';

/**
 * Embedded PostgreSQL (PGlite) in a folder, locked for one process (two on one folder lose
 * committed rows). Its mechanisms are described in docs/architecture.md, "The store", and
 * docs/threat-model.md, "Embedded store folder".
 */

/** Smaller buffers than PGlite's defaults: less memory for a small team's data. */
export const PGLITE_CONFIG = ['shared_buffers=16MB', 'wal_buffers=1MB'].join('\n');

/** Written next to `pgdata` once a store is made: a folder holding it and no store lost one. */
export const STORE_MARKER = 'payops.store';

export class StoreMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreMissing';
  }
}

/** A folder that never held a store, where one must exist: nothing was created there. */
export class NoStore extends StoreMissing {
  constructor(readonly folder: string) {
    super(
      `There is no store in ${folder}, and PAYOPS_STORE_MUST_EXIST is true: check that the volume is mounted there. To create a new store on purpose, start once without PAYOPS_STORE_MUST_EXIST.`,
    );
    this.name = 'NoStore';
  }
}

export interface PgliteOptions {
  /**
   * Told, at warn level, when a new store is created and when its folder cannot be locked; at
   * info level, when a new store is made without a template.
   */
  logger?: Pick<Logger, 'warn' | 'info'>;
  /**
   * Never create a store: a folder without one refuses to start (a volume not mounted), and
   * nothing is written there, not even the folder or its lock.
   */
  mustExist?: boolean;
  /**
   * The folder holding the store template a new store starts from (pglite-template.ts; default:
   * the build's). `null`: none, a new store is an empty database (initdb alone).
   */
  templates?: string | null;
}

/** `dataDir` undefined: in memory (tests). */
export async function openPglite(
  dataDir: string | undefined,
  options: PgliteOptions = {},
): Promise<Database> {
  if (!dataDir) {
    const template = templateFor(options);
    return pgliteDatabase(
      await PGlite.create({
        postgresqlconf: PGLITE_CONFIG,
        loadDataDir: template ? await openAsBlob(template) : undefined,
      }),
    );
  }
  const folder = resolve(dataDir);
  // Before the lock: taking it creates the folder and its lock file.
  if (options.mustExist) holdsStore(folder, true);
  const lock = await lockDataDir(dataDir, { logger: options.logger });
  try {
    const pgdata = await storeIn(folder, options);
    const pg = await PGlite.create(pgdata, { postgresqlconf: PGLITE_CONFIG });
    restrictToOwner(folder);
    return pgliteDatabase(pg, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Takes every permission from group and others on `path` and all it holds: PGlite copies its
 * template files in world-writable, and PostgreSQL writes some files at start (its relation cache,
 * through fopen) as the umask says. What it creates later it creates owner-only.
 */
function restrictToOwner(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(path)) restrictToOwner(join(path, name));
}

/** The folder's `pgdata`, created if the folder never held a store (unless it must exist). */
async function storeIn(folder: string, options: PgliteOptions): Promise<string> {
  const pgdata = join(folder, 'pgdata');
  const marker = join(folder, STORE_MARKER);
  if (holdsStore(folder, options.mustExist ?? false)) {
    if (!existsSync(marker)) markStore(marker);
    return pgdata;
  }
  options.logger?.warn(
    { dataDir: folder },
    `Creating a NEW empty store in ${folder}: if you expected existing data, stop now, the volume may not be mounted`,
  );
  await createApart(pgdata, templateFor(options));
  markStore(marker);
  return pgdata;
}

/**
 * The template file a new store starts from; undefined when it is made with initdb: on purpose
 * (`templates: null`), or for want of a template for these migrations, which the log says.
 */
function templateFor(options: PgliteOptions): string | undefined {
  if (options.templates === null) return undefined;
  const folder = options.templates ?? TEMPLATES;
  const template = findTemplate(folder);
  if (!template) {
    options.logger?.info(
      { templates: folder },
      `No store template for these migrations in ${folder} (npm run build makes it): the new store is made with initdb and every migration, which takes seconds`,
    );
  }
  return template;
}

/**
 * Whether `folder` holds a store, reading only. One that held a store and has none now (its
 * marker, or an empty `pgdata`) throws StoreMissing: a new empty store there would hide that
 * its history and holds are gone, from this start and every later one. So does one that never
 * held a store when it `mustExist` (NoStore).
 */
function holdsStore(folder: string, mustExist: boolean): boolean {
  const pgdata = join(folder, 'pgdata');
  const marker = join(folder, STORE_MARKER);
  const startAnew = 'To start anew with an empty store on purpose, remove';
  if (existsSync(join(pgdata, 'PG_VERSION'))) return true;
  if (existsSync(marker)) {
    throw new StoreMissing(
      `The data folder ${folder} held a payops store (${STORE_MARKER} is there) but its store ${pgdata} is missing. Check that the volume is mounted and complete. ${startAnew} ${marker}.`,
    );
  }
  if (statSync(pgdata, { throwIfNoEntry: false })?.isDirectory()) {
    throw new StoreMissing(
      `${pgdata} exists but holds no store (no PG_VERSION). Check that the volume is mounted and complete. ${startAnew} ${pgdata}.`,
    );
  }
  if (mustExist) throw new NoStore(folder);
  return false;
}

function markStore(marker: string): void {
  writeFileSync(
    marker,
    `A payops store is in pgdata here (made ${new Date().toISOString()}); payops refuses to start if it goes missing.\n`,
    { mode: OWNER_ONLY_FILE },
  );
}

/**
 * `db` as a Database; `lock`, the folder's, is let go once it is closed.
 */
export function pgliteDatabase(db: PGlite, lock?: FolderLock): Database {
  const queue = takingTurns();
  const inTurn = <T>(work: () => Promise<T>) => queue(work);
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
        await queue(() => db.close());
      } finally {
        lock?.release();
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
 * A fresh folder is created — from `template`, or by initdb — and migrated in a short-lived child
 * process: initdb keeps hundreds of MB of wasm memory in the process that runs it, for good.
 */
async function createApart(pgdata: string, template: string | undefined): Promise<void> {
  // Made under a name of its own and renamed when complete: a creation cut short (a crash, a
  // kill) leaves no half-made folder where the next start would look, only this one, which is
  // ours by its name and removed here before trying again.
  const creating = `${pgdata}.creating`;
  rmSync(creating, { recursive: true, force: true });
  // Owner-only before PGlite writes into it: its template files come world-writable.
  mkdirSync(creating, { mode: OWNER_ONLY_FOLDER });
  // Killed if it hangs: the process must fail to start, not wait for ever holding the lock.
  const child = forkModule(
    import.meta.url,
    'pglite-create',
    [creating, ...(template ? [template] : [])],
    {
      timeoutMs: CREATE_TIMEOUT_MS,
    },
  );
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
