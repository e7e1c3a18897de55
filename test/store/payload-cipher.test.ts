import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyNotConfigured, PayloadCipher } from '../../src/store/payload-cipher.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, someoneWaitsOnALock, type TestDatabase } from '../helpers/db.ts';
import { newRequest } from '../helpers/requests.ts';

const OLD = { id: 'k_1', key: randomBytes(32) };
const NEW = { id: 'k2', key: randomBytes(32) };
const ACCOUNT = '000123456789';
const BODY = JSON.stringify({ wallet_id: 'wal_1', amount: '10.00', beneficiary_account: ACCOUNT });

describe('a stored payload sealed with AES-256-GCM', () => {
  const cipher = new PayloadCipher({ current: OLD, old: [] });

  it('opens to exactly what was sealed, names its key, and never repeats a ciphertext', () => {
    const sealed = cipher.seal(BODY);
    expect(sealed).toMatch(/^enc:v1:k_1:/);
    expect(sealed).not.toContain(ACCOUNT);
    expect(cipher.open(sealed)).toBe(BODY);
    expect(cipher.seal(BODY)).not.toBe(sealed);
  });

  it('refuses an altered value and one sealed with a key it does not have', () => {
    const sealed = cipher.seal(BODY);
    const flipped = `${sealed.slice(0, -4)}${sealed.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect(() => cipher.open(flipped)).toThrow();
    expect(() => new PayloadCipher({ current: NEW, old: [] }).open(sealed)).toThrow(
      KeyNotConfigured,
    );
  });

  it('reads a value stored before encryption as it is', () => {
    expect(cipher.open(BODY)).toBe(BODY);
    expect(cipher.needsRotation(BODY)).toBe(true);
  });
});

describe.each(engines())('payloads at rest on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase(engine);
  });
  afterAll(() => database.drop());

  async function storedBodies(): Promise<string[]> {
    const rows = await database.db.query<{ body: string }>(
      'select body from payment_requests order by id',
    );
    return rows.map((row) => row.body);
  }

  it('keeps no banking number in the clear, and rotation moves every payload to the new key', async () => {
    const before = new RequestStore(database.db, new PayloadCipher({ current: OLD, old: [] }));
    const sealed = await before.create(newRequest({ body: BODY }));
    await database.db.query(
      "insert into payment_requests (operation_id, body, fingerprint, hold_key, requester_id, required_approvals, expires_at, seal) values ($1, $2, $3, $4, $5, 1, now(), 's')",
      ['createPayout', BODY, 'f', 'h', 'U0ALICE'],
    );
    expect((await storedBodies())[0]).not.toContain(ACCOUNT);

    const rotating = new RequestStore(database.db, new PayloadCipher({ current: NEW, old: [OLD] }));
    expect(await rotating.reencryptPayloads(1)).toBe(2);
    expect(await rotating.reencryptPayloads()).toBe(0);
    const bodies = await storedBodies();
    expect(bodies.every((body) => body.startsWith('enc:v1:k2:'))).toBe(true);
    expect(bodies.join()).not.toContain(ACCOUNT);

    const after = new RequestStore(database.db, new PayloadCipher({ current: NEW, old: [] }));
    expect((await after.get(sealed.id))?.body).toBe(BODY);
  });

  it('rotation waits for a row a replica holds locked rather than leave it on the old key', async () => {
    const before = new RequestStore(database.db, new PayloadCipher({ current: OLD, old: [] }));
    const held = await before.create(newRequest({ body: BODY }));
    const rotating = new RequestStore(database.db, new PayloadCipher({ current: NEW, old: [OLD] }));
    let rotated: Promise<number> | undefined;
    await database.db.transaction(async (tx) => {
      // A replica's write on the row (an approval, a redraw) holds it while rotation runs.
      await tx.query('update payment_requests set updated_at = now() where id = $1', [held.id]);
      rotated = rotating.reencryptPayloads();
      await someoneWaitsOnALock(database);
    });
    expect(await rotated).toBe(1);
    const after = new RequestStore(database.db, new PayloadCipher({ current: NEW, old: [] }));
    expect((await after.get(held.id))?.body).toBe(BODY);
  });
});
