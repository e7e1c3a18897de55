/**
 * The store's port: plain SQL over PostgreSQL, whichever engine runs it — embedded PGlite by
 * default, a PostgreSQL server (`pg`) when DATABASE_URL is set. One dialect for both.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs several statements at once (migrations); no parameters. */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** A cheap round trip, for readiness probes. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Settings every session payops opens has from its start, such as the audit chain's keys
 * (`auditSessionSettings`). Values are words: hex or identifiers.
 */
export type SessionSettings = Readonly<Record<string, string>>;

/** For an engine with one session for good (PGlite): the settings, set once. */
export async function applySessionSettings(
  db: Queryable,
  settings: SessionSettings,
): Promise<void> {
  for (const [name, value] of Object.entries(settings)) {
    await db.query('select set_config($1, $2, false)', [name, value]);
  }
}

/** A timestamp column as ISO text: pg gives a Date, PGlite may give a string. */
export function iso(value: Date | string): string {
  return new Date(value).toISOString();
}
