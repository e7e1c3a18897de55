import type { PaymentRequest } from '../../domain/approval.ts';
import {
  REQUEST_COLUMNS,
  type RequestDb,
  type RequestRow,
  SELECT_REQUEST,
  toRequest,
} from './rows.ts';

/**
 * Lists of requests: the pending queue, and a person's Home (their queue, their requests, the
 * last decisions).
 */

export async function listPending(
  { db, cipher }: RequestDb,
  { limit }: { limit: number },
): Promise<{ requests: PaymentRequest[]; total: number }> {
  const rows = await db.query<RequestRow>(
    `${SELECT_REQUEST} where r.status = 'pending' order by r.id limit $1`,
    [limit],
  );
  const [count] = await db.query<{ total: unknown }>(
    "select count(*) as total from payment_requests where status = 'pending'",
  );
  return {
    requests: rows.map((row) => toRequest(row, cipher)),
    total: Number(count?.total ?? 0),
  };
}

/**
 * Requests `approverId` may approve at `now` by the rules on the request (pending, not
 * expired, not theirs, not already approved by them), oldest first, with how many there are. A
 * chain that lets one person fill several steps is listed whatever they approved: whether they
 * filled its open step is for the caller (`alreadyCounted`).
 */
export async function pendingFor(
  { db, cipher }: RequestDb,
  { approverId, now, limit }: { approverId: string; now: Date; limit: number },
): Promise<{ requests: PaymentRequest[]; total: number }> {
  const rows = await db.query<RequestRow & { total: unknown }>(
    `select ${REQUEST_COLUMNS}, count(*) over () as total from payment_requests r
      where r.status = 'pending' and r.expires_at > $2 and r.requester_id <> $1
        and (r.approval_chain @> '{"samePersonMayFillSteps": true}'
             or not exists (select 1 from approvals a where a.request_id = r.id and a.approver_id = $1))
      order by r.id limit $3`,
    [approverId, now.toISOString(), limit],
  );
  return {
    requests: rows.map((row) => toRequest(row, cipher)),
    total: Number(rows[0]?.total ?? 0),
  };
}

/** `requesterId`'s latest requests, newest first, whatever their status. */
export async function requestsOf(
  { db, cipher }: RequestDb,
  { requesterId, limit }: { requesterId: string; limit: number },
): Promise<PaymentRequest[]> {
  const rows = await db.query<RequestRow>(
    `${SELECT_REQUEST} where r.requester_id = $1 order by r.id desc limit $2`,
    [requesterId, limit],
  );
  return rows.map((row) => toRequest(row, cipher));
}

/**
 * The latest requests decided (approved and sent, rejected, cancelled, expired) that `userId`
 * requested, approved or decided, latest decision first.
 */
export async function decisionsOf(
  { db, cipher }: RequestDb,
  { userId, limit }: { userId: string; limit: number },
): Promise<PaymentRequest[]> {
  const rows = await db.query<RequestRow>(
    `${SELECT_REQUEST}
     where r.status not in ('pending', 'executing')
       and r.id in (select id from payment_requests where requester_id = $1
                    union select id from payment_requests where decided_by = $1
                    union select request_id from approvals where approver_id = $1)
     order by r.updated_at desc, r.id desc limit $2`,
    [userId, limit],
  );
  return rows.map((row) => toRequest(row, cipher));
}
