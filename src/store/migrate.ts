import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
/** Any constant shared by all payops processes: serialises concurrent migrators. */
const MIGRATION_LOCK = 72_450_001;

/** The migrations' file names (`NNNN_name.sql`), in the order they apply. */
export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
}

export function migrationSql(file: string): string {
  return readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8');
}

/**
 * Applies `migrations/NNNN_name.sql` in order, each in its own transaction, recorded in
 * `schema_migrations`. Replicas starting together wait on an advisory lock instead of racing.
 */
export async function migrate(db: Database): Promise<string[]> {
  const files = migrationFiles();
  // Already at this schema: nothing to take, so payops may run as a role that cannot create or
  // alter tables (docs/threat-model.md, "Deploying it") once the owner has migrated.
  const [bookkept] = await db.query<{ table: string | null }>(
    "select to_regclass('schema_migrations')::text as table",
  );
  if (bookkept?.table) {
    const rows = await db.query<{ version: string }>('select version from schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    if (files.every((file) => done.has(file.slice(0, 4)))) return [];
  }
  const applied: string[] = [];
  for (const file of files) {
    const version = file.slice(0, 4);
    const done = await db.transaction(async (tx) => {
      // Everything, the bookkeeping table included, under the lock: replicas starting together
      // on a new database would otherwise race to create it.
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.exec(
        'create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())',
      );
      const seen = await tx.query('select 1 from schema_migrations where version = $1', [version]);
      if (seen.length > 0) return false;
      await tx.exec(migrationSql(file));
      await tx.query('insert into schema_migrations (version) values ($1)', [version]);
      return true;
    });
    if (done) applied.push(file);
  }
  return applied;
}
