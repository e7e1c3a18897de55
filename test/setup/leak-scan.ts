import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { LEAK_SCAN_DIR_VARIABLE } from '../helpers/leak-trail.ts';

/**
 * The end-to-end tests keep what payops produced in one folder per `vitest` run (see
 * test/helpers/leak-trail.ts), which test/e2e/leak-scan.test.ts reads once they are all done.
 * This file is the e2e project's global setup: it starts the folder empty and removes it at the end.
 */

/** The environment of the end-to-end tests and of the scan, computed once by the config. */
export function leakScanEnv(): Record<string, string> {
  const env: Record<string, string> = {
    [LEAK_SCAN_DIR_VARIABLE]: join(tmpdir(), `payops-leak-scan-${process.pid}`),
  };
  const databaseUrl = withPassword(process.env.TEST_DATABASE_URL);
  if (databaseUrl !== undefined) env.TEST_DATABASE_URL = databaseUrl;
  return env;
}

/**
 * The PostgreSQL runs connect with a password, so that the scan also looks for one: a URL
 * without one gets a fresh one (a local server with trust authentication accepts any).
 */
function withPassword(databaseUrl: string | undefined): string | undefined {
  if (databaseUrl === undefined || databaseUrl === '') return undefined;
  const url = new URL(databaseUrl);
  if (url.password === '' && process.env.PGPASSWORD === undefined) {
    url.password = `leak-scan-${randomBytes(9).toString('base64url')}`;
  }
  return url.toString();
}

function folderOf(project: TestProject): string {
  const dir = project.config.env[LEAK_SCAN_DIR_VARIABLE];
  if (typeof dir !== 'string') throw new Error(`${LEAK_SCAN_DIR_VARIABLE} is not configured`);
  return dir;
}

export function setup(project: TestProject): () => void {
  const dir = folderOf(project);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return () => rmSync(dir, { recursive: true, force: true });
}
