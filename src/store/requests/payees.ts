import type { PaymentRequest } from '../../domain/approval.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import type { Queryable } from '../database.ts';
import { iso } from '../database.ts';
import { openBody, type RequestDb, type RequestRow } from './rows.ts';

/** The payees payops has paid, and the requests a policy window counts per payee. */

/** The payee of each row of `rows` (with `payee_tag`, `payee_name_tag`, `id`), as paid. */
export function paidPayees(rows: string): string {
  return `insert into paid_payees (payee_tag, name_tag, request_id)
    select payee_tag, coalesce(payee_name_tag, ''), id from ${rows} and payee_tag is not null
    on conflict do nothing`;
}

/**
 * What this deployment has paid before: whether the destination `payeeTag`, and at which
 * other destinations the name `nameTag`.
 */
export async function payeeHistory(
  db: Queryable,
  { payeeTag, nameTag }: { payeeTag: string; nameTag: string | undefined },
): Promise<{ paidBefore: boolean; nameElsewhere: string[] }> {
  const [row] = await db.query<{ paid: boolean; elsewhere: string[] | null }>(
    `select exists (select 1 from paid_payees where payee_tag = $1) as paid,
            (select array_agg(distinct payee_tag) from paid_payees
              where $2::text is not null and name_tag = $2 and payee_tag <> $1) as elsewhere`,
    [payeeTag, nameTag ?? null],
  );
  return { paidBefore: row?.paid ?? false, nameElsewhere: row?.elsewhere ?? [] };
}

/** The rows a window counts: requester $1, payee tag $2, since $3. */
export const IN_WINDOW = `payment_requests
  where requester_id = $1 and payee_tag = $2 and created_at >= $3
    and status in ('pending', 'executing', 'submitted', 'unknown')`;

/** The requests of requester $1 since $2 that may still pay or did, to any payee. */
export const IN_REQUESTER_WINDOW = `payment_requests
  where requester_id = $1 and created_at >= $2
    and status in ('pending', 'executing', 'submitted', 'unknown')`;

/**
 * The requests `requesterId` made since `since`, to any payee, that may still pay or did, bodies
 * opened: what a requester limit counts.
 */
export async function requestsOfRequester(
  { db, cipher }: RequestDb,
  { requesterId, since }: { requesterId: string; since: Date },
): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>> {
  const rows = await db.query<Pick<RequestRow, 'id' | 'operation_id' | 'body' | 'created_at'>>(
    `select id, operation_id, body, created_at from ${IN_REQUESTER_WINDOW} order by created_at`,
    [requesterId, since.toISOString()],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    operationId: row.operation_id as WriteOperationId,
    body: openBody(row.body, cipher),
    createdAt: iso(row.created_at),
  }));
}

/**
 * The requests `requesterId` made to the payee `payeeTag` since `since` that may still pay or
 * did (pending, being sent, submitted, outcome unknown), bodies opened: what a policy window
 * counts. One range scan of the index of migration 0012.
 */
export async function requestsToPayee(
  { db, cipher }: RequestDb,
  { requesterId, payeeTag, since }: { requesterId: string; payeeTag: string; since: Date },
): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>> {
  const rows = await db.query<Pick<RequestRow, 'id' | 'operation_id' | 'body' | 'created_at'>>(
    `select id, operation_id, body, created_at from ${IN_WINDOW} order by created_at`,
    [requesterId, payeeTag, since.toISOString()],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    operationId: row.operation_id as WriteOperationId,
    body: openBody(row.body, cipher),
    createdAt: iso(row.created_at),
  }));
}
