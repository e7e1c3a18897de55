import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';

/**
 * One process at a time on an embedded store's folder, whatever PID namespace or host it runs in
 * (docs/threat-model.md, "Embedded store folder"). The holder rewrites `payops.lock` at every
 * heartbeat; a start that finds it watches it and takes it over only once it has stayed unchanged
 * for the stale bound by the watcher's own clock: no clocks compared, no pid believed. The holder
 * uses the store only while its last renewal is younger than that bound, so a holder paused long
 * enough to be taken over never writes again. On one kernel the holder also
 * holds a kernel lock (flock), which the kernel drops when it dies: a restart on the same machine
 * after a crash takes over at once instead of waiting.
 */

export const HEARTBEAT_MS = 2_000;
export const STALE_MS = 20_000;

/** The store's folder and files are its owner's alone: they hold payloads and the audit log. */
export const OWNER_ONLY_FOLDER = 0o700;
export const OWNER_ONLY_FILE = 0o600;

export interface FolderLockOptions {
  /** How often the holder renews its lock. */
  heartbeatMs?: number;
  /** How long a lock must stay unchanged, watched, before its holder counts as gone. */
  staleMs?: number;
  /** Told once if the lock stops being ours: the store must not be touched again. */
  onLost?: (error: DataDirLockLost) => void;
  /** Told why a start waits. */
  logger?: Pick<Logger, 'warn'>;
  /** Also hold the kernel's lock; off only in tests, to act as another host. */
  kernelLock?: boolean;
}

export interface FolderLock {
  /** Throws DataDirLockLost unless the lock is still ours; renews it if its timer is late. */
  assertHeld(): void;
  readonly lost: boolean;
  /** Stops renewing it and removes it, if it is still ours. */
  release(): void;
}

/** What `payops.lock` holds: who holds the folder and a heartbeat that changes at every renewal. */
interface LockRecord {
  owner: string;
  host: string;
  pid: number;
  /** The kernel's boot id: the same in every container of one machine, until it reboots. */
  bootId: string | undefined;
  kernelLock: boolean;
  beat: number;
  beatAt: string;
}

export class DataDirLocked extends Error {
  constructor(dataDir: string, holder: string) {
    super(
      `The data folder ${dataDir} is in use by another payops process ${holder}. Only one process may use an embedded store; stop the other one, or use PostgreSQL (DATABASE_URL) to run several.`,
    );
    this.name = 'DataDirLocked';
  }
}

export class DataDirLockLost extends Error {
  constructor(dataDir: string, reason: string) {
    super(
      `The lock of the data folder ${dataDir} is no longer this process's: ${reason}. It must not use the store any more.`,
    );
    this.name = 'DataDirLockLost';
  }
}

export async function lockDataDir(
  dataDir: string,
  options: FolderLockOptions = {},
): Promise<FolderLock> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const staleMs = options.staleMs ?? STALE_MS;
  if (staleMs < 4 * heartbeatMs) throw new Error('the stale bound must be at least 4 heartbeats');
  mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  const lockPath = join(dataDir, 'payops.lock');
  const kernelFd = options.kernelLock === false ? undefined : takeKernelLock(lockPath);
  if (kernelFd === 'busy') throw new DataDirLocked(dataDir, describe(readText(lockPath)));
  const mine: LockRecord = {
    owner: randomBytes(16).toString('hex'),
    host: hostname(),
    pid: process.pid,
    bootId: bootId(),
    kernelLock: kernelFd !== undefined,
    beat: 0,
    beatAt: new Date().toISOString(),
  };
  let renewedAt: number;
  try {
    renewedAt = await acquire(dataDir, lockPath, mine, { ...options, staleMs, heartbeatMs });
  } catch (error) {
    if (kernelFd !== undefined) closeSync(kernelFd);
    throw error;
  }
  return holding(dataDir, lockPath, mine, {
    ...options,
    renewedAt,
    heartbeatMs,
    staleMs,
    kernelFd,
  });
}

/** Takes the lock; resolves with when our record was written, at the earliest. */
async function acquire(
  dataDir: string,
  lockPath: string,
  mine: LockRecord,
  options: { staleMs: number; heartbeatMs: number } & FolderLockOptions,
): Promise<number> {
  const text = JSON.stringify(mine);
  for (;;) {
    const writtenFrom = performance.now();
    if (createExclusive(lockPath, text)) return writtenFrom;
    const seen = readText(lockPath);
    if (seen === undefined) continue;
    if (/^\d+$/.test(seen.trim())) {
      throw new Error(
        `The data folder ${dataDir} is locked by an earlier payops version (pid ${seen.trim()}), whose lock cannot be checked. Stop it; if no payops runs on this folder, remove ${lockPath}.`,
      );
    }
    const holder = parse(seen);
    // It held the kernel lock on this kernel for its whole life, and that lock is ours now.
    const holderGone =
      mine.kernelLock &&
      holder?.kernelLock === true &&
      mine.bootId !== undefined &&
      holder.bootId === mine.bootId;
    if (!holderGone) {
      options.logger?.warn(
        { dataDir, holder: describe(seen) },
        `The data folder ${dataDir} is locked by another process ${describe(seen)}: waiting up to ${options.staleMs / 1000} s for a heartbeat; without one it is taken over`,
      );
      const outcome = await watch(lockPath, seen, options.staleMs, options.heartbeatMs / 4);
      if (outcome === 'released') continue;
      if (outcome === 'renewed') throw new DataDirLocked(dataDir, describe(readText(lockPath)));
    }
    const writtenAt = performance.now();
    if (replace(lockPath, seen, text, mine.owner)) return writtenAt;
  }
}

/** Reads the lock until it changes, disappears, or has stayed as `seen` for `staleMs`. */
async function watch(
  lockPath: string,
  seen: string,
  staleMs: number,
  pollMs: number,
): Promise<'renewed' | 'released' | 'stale'> {
  const since = performance.now();
  while (performance.now() - since < staleMs) {
    await sleep(pollMs);
    const now = readText(lockPath);
    if (now === undefined) return 'released';
    if (now !== seen) return 'renewed';
  }
  return 'stale';
}

/**
 * Replaces the lock only if it still holds `seen`. It is first renamed aside, which only one
 * process can do to a given file; if what was moved is not `seen`, another process took it over
 * meanwhile and it is put back (a hard link, refused if yet another lock appeared: its holder
 * then finds its lock gone at its next heartbeat and stops).
 */
function replace(lockPath: string, seen: string, text: string, owner: string): boolean {
  const aside = `${lockPath}.${owner}.old`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    if (readText(aside) === seen) return createExclusive(lockPath, text);
    linkSync(aside, lockPath);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * No one takes the lock over before it has stayed unchanged for the stale bound since our last
 * renewal: we renew, and let statements start, only within that bound (a statement starting
 * late renews first). A renewal failing for half of it counts as losing the lock.
 */
function holding(
  dataDir: string,
  lockPath: string,
  mine: LockRecord,
  options: {
    renewedAt: number;
    heartbeatMs: number;
    staleMs: number;
    kernelFd: number | undefined;
  } & FolderLockOptions,
): FolderLock {
  const { heartbeatMs, staleMs } = options;
  let renewedAt = options.renewedAt;
  let lost: DataDirLockLost | undefined;
  const sinceRenewal = () => performance.now() - renewedAt;
  const lose = (reason: string) => {
    lost = new DataDirLockLost(dataDir, reason);
    clearInterval(timer);
    options.onLost?.(lost);
  };
  const renew = () => {
    if (lost) return;
    const startedAt = performance.now();
    if (sinceRenewal() >= staleMs) {
      return lose(
        `it was not renewed for ${Math.round(sinceRenewal())} ms (this process was paused or blocked), so another may have taken it over`,
      );
    }
    try {
      const now = readText(lockPath);
      if (parse(now)?.owner !== mine.owner) {
        return lose(
          now === undefined
            ? 'its lock file is gone'
            : `now held by another process ${describe(now)}`,
        );
      }
      mine.beat++;
      mine.beatAt = new Date().toISOString();
      const next = `${lockPath}.${mine.owner}.new`;
      writeFileSync(next, JSON.stringify(mine), { mode: OWNER_ONLY_FILE });
      renameSync(next, lockPath);
    } catch (error) {
      if (sinceRenewal() >= staleMs / 2) {
        lose(`renewing it has failed for ${Math.round(sinceRenewal())} ms: ${String(error)}`);
      }
      return;
    }
    // Paused between the check and the rename, it may have overwritten a newer holder's lock.
    if (sinceRenewal() >= staleMs) return lose('this process was paused while renewing it');
    renewedAt = startedAt;
  };
  const timer = setInterval(renew, heartbeatMs);
  timer.unref();
  return {
    assertHeld() {
      if (sinceRenewal() >= 2 * heartbeatMs) renew();
      if (lost) throw lost;
    },
    get lost() {
      return lost !== undefined;
    },
    release() {
      clearInterval(timer);
      // Past the stale bound another process may hold it: left for it, or to go stale.
      if (!lost && sinceRenewal() < staleMs && parse(readText(lockPath))?.owner === mine.owner) {
        rmSync(lockPath, { force: true });
      }
      if (options.kernelFd !== undefined) closeSync(options.kernelFd);
    },
  };
}

/**
 * flock(2) through flock(1) on a descriptor we keep open: the lock belongs to the open file, so it
 * stays ours after flock(1) exits, and the kernel drops it when this process dies. Undefined
 * where there is no flock(1) or the volume refuses it: the heartbeat alone then decides.
 * On `payops.lock.kernel`, which is never removed, so that every process locks the same file.
 */
function takeKernelLock(lockPath: string): number | 'busy' | undefined {
  const fd = openSync(`${lockPath}.kernel`, 'a', OWNER_ONLY_FILE);
  const result = spawnSync('flock', ['-x', '-n', '3'], {
    stdio: ['ignore', 'ignore', 'ignore', fd],
  });
  if (result.status === 0) return fd;
  closeSync(fd);
  // flock(1) exits 1 when the lock is held; other codes are errors (e.g. a volume without locks).
  return result.status === 1 ? 'busy' : undefined;
}

/** Creates `path` holding `text`, only if it does not exist; false when it does. */
function createExclusive(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', OWNER_ONLY_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parse(text: string | undefined): LockRecord | undefined {
  try {
    const record = JSON.parse(text ?? '');
    return typeof record?.owner === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds a lock, as said after "another payops process". */
function describe(text: string | undefined): string {
  const record = parse(text);
  if (!record) return '(its lock file cannot be read)';
  return `(pid ${record.pid}) on host ${record.host}, last heartbeat ${record.beatAt}`;
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
