import { lockDataDir } from '../../src/store/folder-lock.ts';

/**
 * A process that takes a data folder's lock, for tests of several processes on one folder.
 * Arguments: the folder, and lockDataDir's options as JSON. It says on stdout `locked <pid>`,
 * `refused <why>` (and exits 2) or, once holding, `lost` (and exits 3); it releases the lock and
 * exits when its stdin closes.
 */
const [dataDir = '', options = '{}'] = process.argv.slice(2);
try {
  const lock = await lockDataDir(dataDir, {
    ...JSON.parse(options),
    onLost() {
      console.log('lost');
      process.exit(3);
    },
  });
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
