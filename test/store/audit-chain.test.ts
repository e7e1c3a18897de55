import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditSessionSettings, verifyAuditChain } from '../../src/store/audit-chain.ts';
import { applySessionSettings, type Database, type Queryable } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { checks, newRequest, testCipher, testSigner } from '../helpers/requests.ts';

/** `payops audit verify`: an intact log passes; an edited, deleted or inserted row is named. */

const KEY = testSigner.auditKey;
const SETTINGS = auditSessionSettings(KEY);

describe.each(engines())('the audit chain on %s', (engine) => {
  let database: TestDatabase;
  /** payops's own sessions: they carry the chain's key. */
  let keyed: Database;

  beforeEach(async () => {
    database = await freshDatabase(engine);
    if (engine === 'pglite') {
      await applySessionSettings(database.db, SETTINGS);
      keyed = database.db;
    } else {
      keyed = await openPostgres(database.url as string, { session: SETTINGS });
    }
    const store = new RequestStore(keyed, testCipher);
    for (let index = 0; index < 3; index++) {
      const request = await store.create(newRequest());
      await store.approve(request.id, 'U0BOB', 'test', checks());
    }
  });
  afterEach(async () => {
    if (keyed !== database.db) await keyed.close();
    await database.drop();
  });

  /** As the database's owner would, around the append-only trigger. */
  async function asOwner(sql: string, params: unknown[] = []) {
    await database.db.exec('alter table audit_log disable trigger audit_log_no_update');
    await database.db.query(sql, params);
    await database.db.exec('alter table audit_log enable trigger audit_log_no_update');
  }

  async function rowIds(): Promise<number[]> {
    const rows = await keyed.query<{ id: unknown }>('select id from audit_log order by chain_seq');
    return rows.map((row) => Number(row.id));
  }

  it('an intact log verifies, every row chained in order', async () => {
    const result = await verifyAuditChain(keyed, KEY);
    expect(result).toMatchObject({ ok: true, rows: 9, problems: [] });
    expect(result.head.seq).toBe(9);
  });

  it('rows payops adds while it verifies are not taken for deleted ones', async () => {
    const store = new RequestStore(keyed, testCipher);
    let adding: Promise<unknown> | undefined;
    // payops goes on working between the verifier's reads (on PGlite, after them: one session).
    const hooked =
      (target: Queryable): Queryable['query'] =>
      async (sql, params) => {
        const rows = await target.query(sql, params);
        if (adding === undefined && sql.includes('audit_log_message')) {
          adding = store.create(newRequest());
          if (engine === 'postgres') await adding;
        }
        return rows as never;
      };
    const working: Database = {
      ...keyed,
      query: hooked(keyed),
      transaction: (work) => keyed.transaction((tx) => work({ ...tx, query: hooked(tx) })),
    };
    const result = await verifyAuditChain(working, KEY);
    await adding;
    expect(result).toMatchObject({ ok: true, rows: 9, problems: [] });
    expect(await verifyAuditChain(keyed, KEY)).toMatchObject({ ok: true, rows: 10 });
  });

  it('names a row forged past the chain’s head', async () => {
    const [last] = await keyed.query<{ id: unknown }>(
      'select id from audit_log order by chain_seq desc limit 1',
    );
    await database.db.exec('alter table audit_log disable trigger audit_log_chained');
    await database.db.query(
      `insert into audit_log (actor, event, chain_seq, prev_hash, row_hash)
       values ('U0MALLORY', 'approved', 10, 'x', 'y')`,
    );
    await database.db.exec('alter table audit_log enable trigger audit_log_chained');
    const result = await verifyAuditChain(keyed, KEY);
    expect(result.ok).toBe(false);
    expect(result.problems).toContain(
      `the chain's head (position 9) does not match its last row id ${Number(last?.id) + 1}`,
    );
    expect(result.problems).toContain(
      `row id ${Number(last?.id) + 1} (chain position 10) is past the chain's head (position 9)`,
    );
  });

  it('names rows forged at a chain position below 1, where the chain never goes', async () => {
    await database.db.exec('alter table audit_log disable trigger audit_log_chained');
    const forged = await database.db.query<{ id: unknown }>(
      `insert into audit_log (actor, event, chain_seq, prev_hash, row_hash)
       values ('U0MALLORY', 'approved', 0, '', 'y'), ('U0MALLORY', 'approved', -3, '', 'z')
       returning id`,
    );
    await database.db.exec('alter table audit_log enable trigger audit_log_chained');
    const result = await verifyAuditChain(keyed, KEY);
    expect(result.ok).toBe(false);
    expect(result.rows).toBe(11);
    expect(result.problems).toEqual([
      `row id ${forged[0]?.id} is outside the chain: its chain position 0 is below 1, where the chain starts`,
      `row id ${forged[1]?.id} is outside the chain: its chain position -3 is below 1, where the chain starts`,
    ]);
  });

  it('the wrong key finds every row unsealed', async () => {
    const result = await verifyAuditChain(keyed, Buffer.alloc(32, 1));
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(9);
  });

  it('names an edited row', async () => {
    const [, second] = await rowIds();
    await asOwner(`update audit_log set actor = 'U0MALLORY' where id = $1`, [second]);
    const result = await verifyAuditChain(keyed, KEY);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      `row id ${second} (chain position 2) was changed, or written without payops's key`,
    ]);
  });

  it('names a deleted row, in the middle and at the end', async () => {
    const ids = await rowIds();
    await asOwner('delete from audit_log where id = $1', [ids[4]]);
    await asOwner('delete from audit_log where id = $1', [ids[8]]);
    const result = await verifyAuditChain(keyed, KEY);
    expect(result.problems).toEqual([
      `1 row deleted after row id ${ids[3]}, before row id ${ids[5]} (chain positions 5–5)`,
      `the last 1 row(s) were deleted, after row id ${ids[7]} (the chain had reached position 9)`,
    ]);
  });

  it('names a row inserted without payops’s key, and one inserted outside the chain', async () => {
    const unkeyed =
      engine === 'postgres' ? await openPostgres(database.url as string) : database.db;
    try {
      if (unkeyed === database.db) {
        await applySessionSettings(database.db, {
          'payops.audit_ikey': '',
          'payops.audit_okey': '',
        });
      }
      const [forged] = await unkeyed.query<{ id: unknown }>(
        `insert into audit_log (actor, event) values ('U0MALLORY', 'approved') returning id`,
      );
      await database.db.exec('alter table audit_log disable trigger audit_log_chained');
      const [outside] = await database.db.query<{ id: unknown }>(
        `insert into audit_log (actor, event) values ('U0MALLORY', 'approved') returning id`,
      );
      await database.db.exec('alter table audit_log enable trigger audit_log_chained');
      if (unkeyed === database.db) await applySessionSettings(database.db, SETTINGS);
      const result = await verifyAuditChain(keyed, KEY);
      expect(result.problems).toEqual([
        `row id ${outside?.id} is outside the chain: inserted with its trigger disabled`,
        `row id ${forged?.id} (chain position 10) was changed, or written without payops's key`,
      ]);
    } finally {
      if (unkeyed !== database.db) await unkeyed.close();
    }
  });

  it('refuses to be emptied', async () => {
    await expect(database.db.exec('truncate audit_log')).rejects.toThrow(/append-only/);
  });
});
