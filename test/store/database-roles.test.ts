import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSessionSettings } from '../../src/store/audit-chain.ts';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines } from '../helpers/db.ts';
import { checks, newRequest, testCipher, testSigner } from '../helpers/requests.ts';

/**
 * The deployment docs/threat-model.md gives: migrations as the owner, payops as a role that can
 * work but cannot alter, truncate or rewrite the audit log. The grants are the documented ones.
 */

const GRANTS = (app: string) => `
  grant select, insert, update, delete on all tables in schema public to ${app};
  revoke update, delete, truncate on audit_log, audit_chain_head from ${app};
  grant update on audit_chain_head to ${app};
  grant usage on all sequences in schema public to ${app};`;

describe.runIf(engines().includes('postgres'))('payops as a role that owns nothing', () => {
  const suffix = randomBytes(4).toString('hex');
  const names = {
    db: `payops_roles_${suffix}`,
    owner: `payops_owner_${suffix}`,
    app: `payops_app_${suffix}`,
  };
  const admin = () => new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  const urlAs = (role: string) => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.username = role;
    url.pathname = `/${names.db}`;
    return url.toString();
  };
  const session = auditSessionSettings(testSigner.auditKey);
  let app: Database;

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`create role ${names.owner} login`);
    await client.query(`create role ${names.app} login`);
    await client.query(`create database ${names.db} owner ${names.owner}`);
    await client.end();
    const owner = await openPostgres(urlAs(names.owner), { session });
    await migrate(owner);
    await owner.exec(GRANTS(names.app));
    await owner.close();
    app = await openPostgres(urlAs(names.app), { session });
  });
  afterAll(async () => {
    await app?.close();
    const client = admin();
    await client.connect();
    await client.query(`drop database if exists ${names.db} with (force)`);
    await client.query(`drop role if exists ${names.app}`);
    await client.query(`drop role if exists ${names.owner}`);
    await client.end();
  });

  it('starts (nothing to migrate) and does its work', async () => {
    expect(await migrate(app)).toEqual([]);
    const store = new RequestStore(app, testCipher);
    const request = await store.create(newRequest());
    expect((await store.approve(request.id, 'U0BOB', 'test', checks())).kind).toBe('claimed');
  });

  it.each([
    'truncate audit_log',
    'alter table audit_log disable trigger audit_log_no_update',
    "update audit_log set actor = 'U0MALLORY'",
    'delete from audit_log',
    'alter table payment_requests add column x text',
  ])('cannot %s', async (sql) => {
    await expect(app.exec(sql)).rejects.toThrow(/permission denied|must be owner/);
  });
});
