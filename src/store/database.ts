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
