import type { PaymentRequest } from '../../domain/approval.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import { KEYS_VERSION, type WriteKeys } from '../../domain/signer.ts';
import { openBody, type RequestDb, type RequestRow } from './rows.ts';

/** Rewrites of stored requests run outside the workflow: after an upgrade, or a key rotation. */

/**
 * Keys every request stored with keys of an earlier version (`KEYS_VERSION`) again: its hold
 * and payment keys and its payee's tag, and the tag its payee was first paid under. The
 * signing key is not in the database, so no migration can; without it, an outcome unknown
 * before an upgrade would not hold the same payment after it, and payees paid before would
 * show as new. A batch per transaction; a recipient is tagged by its id (no provider read
 * here). Resolves with how many it keyed again.
 */
export async function rekeyStoredRequests(
  { db, cipher }: RequestDb,
  {
    keysOf,
    batchSize,
  }: {
    keysOf: (request: Pick<PaymentRequest, 'operationId' | 'path' | 'body'>) => WriteKeys;
    batchSize: number;
  },
): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      const rows = await tx.query<Pick<RequestRow, 'id' | 'operation_id' | 'path_params' | 'body'>>(
        `select id, operation_id, path_params, body from payment_requests
          where keys_version < $1 order by id limit $2 for update`,
        [KEYS_VERSION, batchSize],
      );
      for (const row of rows) {
        const keys = keysOf({
          operationId: row.operation_id as WriteOperationId,
          path: row.path_params ?? {},
          body: openBody(row.body, cipher),
        });
        await tx.query(
          `update payment_requests set hold_key = $2, payment_key = $3, payee_tag = $4, keys_version = $5
            where id = $1`,
          [row.id, keys.holdKey, keys.paymentKey ?? null, keys.payeeTag ?? null, KEYS_VERSION],
        );
      }
      const ids = rows.map((row) => String(row.id));
      if (ids.length > 0) {
        await tx.query(RETAG_PAID_PAYEES, [ids]);
        await tx.query(DROP_OLD_PAID_TAGS, [ids]);
      }
      return rows.length;
    });
    total += done;
    if (done < batchSize) return total;
  }
}

/** The payees first paid by requests $1, under the tags those requests now have. */
const RETAG_PAID_PAYEES = `
  insert into paid_payees (payee_tag, name_tag, first_paid_at, request_id)
  select r.payee_tag, p.name_tag, p.first_paid_at, p.request_id
    from paid_payees p join payment_requests r on r.id = p.request_id
   where r.id = any($1::bigint[]) and r.payee_tag is not null and r.payee_tag <> p.payee_tag
  on conflict do nothing`;

/** …and no longer under the tags they had before. */
const DROP_OLD_PAID_TAGS = `
  delete from paid_payees p using payment_requests r
   where r.id = p.request_id and r.id = any($1::bigint[]) and r.payee_tag is distinct from p.payee_tag`;

/**
 * Seals every stored payload that is plain or sealed with an older key with the current key,
 * a batch per transaction (replicas may keep running); resolves with how many it re-sealed.
 * Rows a replica holds locked are passed over at first, then waited for: none is left on an
 * old key when it resolves, so the old key may go.
 */
export async function reencryptPayloads(
  { db, cipher }: RequestDb,
  { batchSize }: { batchSize: number },
): Promise<number> {
  // A key id may hold `_`, which LIKE would read as any character.
  const current = `enc:v1:${cipher.currentKeyId.replace(/[\\%_]/g, '\\$&')}:%`;
  let total = 0;
  let waitForLocked = false;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      const rows = await tx.query<{ id: unknown; body: string }>(
        `select id, body from payment_requests
          where body is not null and body not like $1
          order by id limit $2 for update${waitForLocked ? '' : ' skip locked'}`,
        [current, batchSize],
      );
      for (const row of rows) {
        await tx.query('update payment_requests set body = $2 where id = $1', [
          row.id,
          cipher.seal(cipher.open(row.body)),
        ]);
      }
      return rows.length;
    });
    total += done;
    if (done === batchSize) continue;
    if (waitForLocked) return total;
    waitForLocked = true;
  }
}
