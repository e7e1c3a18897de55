import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { testCipher } from './requests.ts';

export type Engine = 'pglite' | 'postgres';

/**
 * The engines a store suite runs on: PGlite always; PostgreSQL when TEST_DATABASE_URL is set.
 * Under CI=true a missing TEST_DATABASE_URL is an error, never a silent skip.
 */
export function engines(): Engine[] {
  if (process.env.TEST_DATABASE_URL) return ['pglite', 'postgres'];
  if (process.env.CI === 'true') {
    throw new Error(
      'CI=true but TEST_DATABASE_URL is not set: the PostgreSQL store suite cannot run',
    );
  }
  console.warn(
    'TEST_DATABASE_URL is not set: store suites run on PGlite only (set it to run them on PostgreSQL too)',
  );
  return ['pglite'];
}

export interface TestDatabase {
  db: Database;
  /** Where a second process could connect (PostgreSQL only). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, migrated database: in-memory PGlite, or a new database on the test server. */
export async function freshDatabase(
  engine: Engine,
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  if (engine === 'pglite') {
    // From the store template, at the current schema; unmigrated, an empty database.
    const db = await openPglite(undefined, migrated ? {} : { templates: null });
    if (migrated) await migrate(db);
    return { db, url: undefined, drop: () => db.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL as string;
  const name = `payops_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString());
  if (migrated) await migrate(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/**
 * Resolves once another session of `database` waits on a lock, so a test holding one knows the
 * statement it raced has reached the server. PGlite has one session: nothing can wait there.
 */
export async function someoneWaitsOnALock(database: TestDatabase): Promise<void> {
  if (database.db.engine === 'pglite') return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [row] = await database.db.query<{ waiting: unknown }>(
      `select count(*) as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (Number(row?.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no session came to wait on the lock within 10 s');
}

/** Every migration's version (`0001`, …), as the migrations folder holds them. */
export function migrationVersions(): string[] {
  return readdirSync(new URL('../../src/store/migrations/', import.meta.url))
    .filter((name) => name.endsWith('.sql'))
    .map((name) => name.slice(0, 4))
    .sort();
}

/**
 * A request store on a fresh database of `engine`, made before the enclosing block's tests and
 * dropped after them; its fields are set once `beforeAll` has run.
 */
export function requestStoreOn(engine: Engine): { database: TestDatabase; store: RequestStore } {
  const fixture = {} as { database: TestDatabase; store: RequestStore };
  beforeAll(async () => {
    fixture.database = await freshDatabase(engine);
    fixture.store = new RequestStore(fixture.database.db, testCipher);
  });
  afterAll(() => fixture.database.drop());
  return fixture;
}
