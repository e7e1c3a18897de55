import type { PaymentRequest } from '../../domain/approval.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import { openBody, type RequestDb, type RequestRow } from './rows.ts';

/** Rewrites of stored requests run outside the workflow: after an upgrade, or a key rotation. */

/**
 * Gives the requests that can hold others (being sent, or outcome unknown) and still carry
 * the byte fingerprint an earlier version used as their hold key (migration 0006) the hold
 * key of today, so that a write whose outcome was unknown before an upgrade still holds
 * the same payment after it. Resolves with how many it changed.
 */
export async function rekeyLegacyHolds(
  { db, cipher }: RequestDb,
  {
    holdKeyOf,
  }: { holdKeyOf: (request: Pick<PaymentRequest, 'operationId' | 'path' | 'body'>) => string },
): Promise<number> {
  const rows = await db.query<Pick<RequestRow, 'id' | 'operation_id' | 'path_params' | 'body'>>(
    `select id, operation_id, path_params, body from payment_requests
      where hold_key = fingerprint and status in ('executing', 'unknown')`,
  );
  for (const row of rows) {
    const holdKey = holdKeyOf({
      operationId: row.operation_id as WriteOperationId,
      path: row.path_params ?? {},
      body: openBody(row.body, cipher),
    });
    await db.query(
      'update payment_requests set hold_key = $2 where id = $1 and hold_key = fingerprint',
      [row.id, holdKey],
    );
  }
  return rows.length;
}

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
