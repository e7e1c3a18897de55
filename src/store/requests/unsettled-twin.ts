import type { UnsettledTwin } from '../../domain/approval.ts';
import type { Queryable } from '../database.ts';

/**
 * Whether request `t` is unsettled (see `UnsettledTwin`; `outcomeSettled` in TypeScript); the
 * partial index of migration 0004 serves it.
 */
export const UNSETTLED = `(t.status = 'executing' or (t.status = 'unknown'
  and coalesce(t.reconciliation->>'result', 'unchecked') <> 'found'
  and t.reconciliation->>'resolvedBy' is null))`;

/** The first unsettled request for the same write, if any (see `UnsettledTwin`). */
export async function unsettledTwin(
  db: Queryable,
  { holdKey }: { holdKey: string },
): Promise<UnsettledTwin | undefined> {
  const [row] = await db.query<{ id: unknown; status: UnsettledTwin['status'] }>(
    `select t.id, t.status from payment_requests t
      where t.hold_key = $1 and ${UNSETTLED} order by t.id limit 1`,
    [holdKey],
  );
  return row ? { id: Number(row.id), status: row.status } : undefined;
}
