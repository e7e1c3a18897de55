import type { UnsettledTwin } from '../../domain/approval.ts';
import type { Queryable } from '../database.ts';

/**
 * Whether request `t` is unsettled (see `UnsettledTwin`; `outcomeSettled` in TypeScript); the
 * partial index of migration 0004 serves it.
 */
export const UNSETTLED = `(t.status = 'executing' or (t.status = 'unknown'
  and coalesce(t.reconciliation->>'result', 'unchecked') <> 'found'
  and t.reconciliation->>'resolvedBy' is null))`;

/** Whether request `t` is for the same write (its hold key) or the same payment (its payment key). */
export function samePayment(holdKey: string, paymentKey: string): string {
  return `(t.hold_key = ${holdKey} or t.payment_key = ${paymentKey})`;
}

/** The first unsettled request for the same write or payment, if any (see `UnsettledTwin`). */
export async function unsettledTwin(
  db: Queryable,
  { holdKey, paymentKey }: { holdKey: string; paymentKey: string | undefined },
): Promise<UnsettledTwin | undefined> {
  const [row] = await db.query<{ id: unknown; status: UnsettledTwin['status'] }>(
    `select t.id, t.status from payment_requests t
      where ${samePayment('$1', '$2')} and ${UNSETTLED} order by t.id limit 1`,
    [holdKey, paymentKey ?? null],
  );
  return row ? { id: Number(row.id), status: row.status } : undefined;
}
