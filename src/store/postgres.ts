import pg from 'pg';
import type { Database, Queryable } from './database.ts';

/** PostgreSQL through `pg`: several payops replicas may share one database. */
export async function openPostgres(
  connectionString: string,
  options: { max?: number } = {},
): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as Row[];
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
