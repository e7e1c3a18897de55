import { openAsBlob } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from './migrate.ts';
import { PGLITE_CONFIG, pgliteDatabase } from './pglite.ts';

/**
 * A child process (see `createApart` in pglite.ts): creates the PGlite folder given as its first
 * argument — from the store template given as its second, or by initdb — applies the migrations
 * (those the template lacks), closes it, says `created` — or why not — and ends, handing back to
 * the OS the memory all that took.
 */
const [pgdata, template] = process.argv.slice(2);
let said: string;
try {
  if (!pgdata) throw new Error('no folder given');
  const db = pgliteDatabase(
    await PGlite.create(pgdata, {
      postgresqlconf: PGLITE_CONFIG,
      loadDataDir: template ? await openAsBlob(template) : undefined,
    }),
  );
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  said = 'created';
} catch (error) {
  said = error instanceof Error ? error.message : String(error);
}
process.send?.(said, () => process.disconnect());
