import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from './migrate.ts';
import { PGLITE_CONFIG, pgliteDatabase } from './pglite.ts';
import { TEMPLATES, templateName } from './pglite-template.ts';

/**
 * Run by `npm run build` (and the tests' global setup): makes the store template for these
 * migrations in TEMPLATES (pglite-template.ts), an empty store made with initdb and every
 * migration, dumped; and removes the templates made for other migrations.
 */
const pg = await PGlite.create({ postgresqlconf: PGLITE_CONFIG });
await migrate(pgliteDatabase(pg));
const dump = Buffer.from(await (await pg.dumpDataDir('gzip')).arrayBuffer());
await pg.close();

mkdirSync(TEMPLATES, { recursive: true });
const name = templateName();
// Written under a name of its own, then renamed: a store never starts from half a template.
const writing = join(TEMPLATES, `${name}.${process.pid}.writing`);
writeFileSync(writing, dump);
renameSync(writing, join(TEMPLATES, name));
for (const other of readdirSync(TEMPLATES)) {
  if (other !== name && !other.endsWith('.writing')) rmSync(join(TEMPLATES, other));
}
console.log(`Store template for these migrations: ${join(TEMPLATES, name)}`);
