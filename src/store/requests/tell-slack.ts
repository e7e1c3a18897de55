import type { Queryable } from '../database.ts';
import { enqueueCardUpdate, enqueueNotice } from '../outbox-store.ts';

/**
 * The request's card redrawn and, with `event`, its requester told in the thread: queued in
 * the change's own transaction.
 */
export async function tellSlack(
  db: Queryable,
  { requestId, event }: { requestId: number; event: string | undefined },
): Promise<void> {
  const request = '(select $1::bigint as id) changed';
  await db.query(enqueueCardUpdate(request), [requestId]);
  if (event !== undefined) await db.query(enqueueNotice(request, '$2::text'), [requestId, event]);
}
