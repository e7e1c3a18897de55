import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The store a payops child runs on, set up fresh for the run and removed after it. */
export interface BenchStore {
  engine: 'pglite' | 'postgres';
  /** What the payops child needs in its environment. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** Embedded PGlite in a new temporary folder. */
export async function embeddedStore(): Promise<BenchStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payops-bench-'));
  return {
    engine: 'pglite',
    env: { PAYOPS_DATA_DIR: dataDir },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A new database on the server of `serverUrl`, dropped afterwards. */
export async function postgresStore(serverUrl: string): Promise<BenchStore> {
  const name = `payops_bench_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    engine: 'postgres',
    env: { DATABASE_URL: url.href },
    // `with (force)` ends the connections a killed payops may have left open.
    dispose: () => onServer(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
