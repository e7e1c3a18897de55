import { spawnSync } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.ts';

/**
 * One process at a time on an embedded store's folder: two PGlite instances on one folder lose
 * committed rows, and PGlite itself takes no lock a second process would see. The lock is the
 * kernel's (flock) on `payops.lock`, held by a descriptor this process keeps open, so the kernel
 * drops it when the process ends however it ends, and every container on the machine sees it.
 */

/** The store's folder and files are its owner's alone: they hold payloads and the audit log. */
export const OWNER_ONLY_FOLDER = 0o700;
export const OWNER_ONLY_FILE = 0o600;

export interface FolderLockOptions {
  /** Told when the folder cannot be locked here (no flock(1), or a volume without locks). */
  logger?: Pick<Logger, 'warn'>;
}

export interface FolderLock {
  /** Lets the folder go. */
  release(): void;
}

export class DataDirLocked extends Error {
  constructor(dataDir: string, holder: string) {
    super(
      `The data folder ${dataDir} is in use by another payops process ${holder}. Only one process may use an embedded store; stop the other one, or use PostgreSQL (DATABASE_URL) to run several.`,
    );
    this.name = 'DataDirLocked';
  }
}

export async function lockDataDir(
  dataDir: string,
  options: FolderLockOptions = {},
): Promise<FolderLock> {
  mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  const lockPath = join(dataDir, 'payops.lock');
  for (;;) {
    const fd = openSync(lockPath, 'a', OWNER_ONLY_FILE);
    // flock(1) on a descriptor we keep open: the lock belongs to the open file, so it stays ours
    // after flock(1) exits. It exits 1 when another holds the lock; anything else is an error.
    const { status } = spawnSync('flock', ['-x', '-n', '3'], {
      stdio: ['ignore', 'ignore', 'ignore', fd],
    });
    if (status === 1) {
      closeSync(fd);
      throw new DataDirLocked(dataDir, describeHolder(lockPath));
    }
    // A holder removes the file as it stops: locked after that, ours is a file nobody else opens.
    if (status === 0 && !isFileAt(fd, lockPath)) {
      closeSync(fd);
      continue;
    }
    if (status !== 0) {
      options.logger?.warn(
        { dataDir },
        `The data folder ${dataDir} cannot be locked here (no flock, or a volume without locks): nothing stops a second payops process from opening it`,
      );
    }
    ftruncateSync(fd, 0);
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname() }));
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        // Removed while still locked, so a process that opened it meanwhile sees it gone.
        rmSync(lockPath, { force: true });
        closeSync(fd);
      },
    };
  }
}

function isFileAt(fd: number, path: string): boolean {
  const open = fstatSync(fd);
  const named = statSync(path, { throwIfNoEntry: false });
  return named !== undefined && named.ino === open.ino && named.dev === open.dev;
}

/** Who holds the lock, as said after "another payops process". */
function describeHolder(lockPath: string): string {
  try {
    const { pid, host } = JSON.parse(readFileSync(lockPath, 'utf8'));
    return `(pid ${pid}) on host ${host}`;
  } catch {
    return '(its lock file cannot be read)';
  }
}
