import { lockDataDir } from '../../src/store/folder-lock.ts';

/**
 * A process that takes a data folder's lock, for tests of several processes on one folder.
 * Argument: the folder. It says on stdout `locked <pid>` or `refused <why>` (and exits 2); it
 * releases the lock and exits when its stdin closes.
 */
const [dataDir = ''] = process.argv.slice(2);
try {
  const lock = await lockDataDir(dataDir);
  console.log(`locked ${process.pid}`);
  process.stdin.on('end', () => {
    lock.release();
    process.exit(0);
  });
  process.stdin.resume();
} catch (error) {
  console.log(`refused ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
