import type { RequestDb } from './rows.ts';

/** Rewrites of stored requests run outside the workflow: a key rotation. */

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
