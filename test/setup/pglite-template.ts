import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findTemplate, TEMPLATES } from '../../src/store/pglite-template.ts';

/**
 * Global setup of the projects that open PGlite: makes the store template for these migrations
 * once (kept in src/store/pglite-template/ for later runs, until a migration changes), so each
 * test's new store loads it instead of running initdb. Made in a child process, as the build does:
 * initdb's memory is not kept by the test runner.
 */
export default function makeStoreTemplate(): void {
  if (findTemplate(TEMPLATES)) return;
  const maker = fileURLToPath(new URL('../../src/store/make-pglite-template.ts', import.meta.url));
  execFileSync(process.execPath, ['--import', 'tsx', maker], { stdio: 'inherit' });
}
