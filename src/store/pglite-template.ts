import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrationFiles, migrationSql } from './migrate.ts';

/**
 * A new embedded store starts from a template: a dump of a store made with initdb and every
 * migration, by the build (`npm run build`) or, for the tests, by their global setup. Loading it
 * takes a fraction of the seconds initdb does. Its file name is a digest of the migrations and of
 * the PGlite version: a template for other migrations is never found, so never used.
 */

/** Where the build leaves the template: beside this module (dist/store/ once built). */
export const TEMPLATES = fileURLToPath(new URL('./pglite-template/', import.meta.url));

/** The template's file name for these migrations and this PGlite. */
export function templateName(): string {
  const digest = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const file of migrationFiles()) {
    const sql = migrationSql(file);
    digest.update(`${file}\n${sql.length}\n${sql}`);
  }
  return `store-${digest.digest('hex').slice(0, 16)}.tar.gz`;
}

/** The template for these migrations in `folder`, if it is there. */
export function findTemplate(folder: string): string | undefined {
  const file = join(folder, templateName());
  return existsSync(file) ? file : undefined;
}

function pgliteVersion(): string {
  // Beside its entry point: the package does not export its package.json.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
