import pg from 'pg';
import type { Database, Queryable, SessionSettings } from './database.ts';

/** PostgreSQL through `pg`: several payops replicas may share one database. */
export async function openPostgres(
  connectionString: string,
  options: { max?: number; session?: SessionSettings } = {},
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    // Given at connection start, never as a statement: not in a statement log or pg_stat_activity.
    ...(options.session && { options: startupOptions(options.session) }),
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      // Each connection parses and plans a statement once, not at every call: payops's SQL is
      // a fixed set of texts, so each gets a name of its own for good.
      const config = { name: statementName(sql), text: sql, values: params };
      return (await client.query(config)).rows as Row[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  });
  await pool.query('select 1');
  return {
    engine: 'postgres',
    ...queryable(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(queryable(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async ping() {
      return pool.query('select 1').then(
        () => true,
        () => false,
      );
    },
    async close() {
      await pool.end();
    },
  };
}

const statementNames = new Map<string, string>();

/** The same name for the same text, always (PostgreSQL refuses one name for two texts). */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `payops_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** `-c name=value …` for the startup packet; values are hex or words, never with spaces. */
function startupOptions(settings: SessionSettings): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!/^[\w.]+$/.test(name) || !/^\w*$/.test(value)) {
        throw new TypeError(`session setting ${name} must be a word`);
      }
      return `-c ${name}=${value}`;
    })
    .join(' ');
}
