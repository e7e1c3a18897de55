import type { Queryable } from './database.ts';
import { enqueueNotice } from './outbox-store.ts';

/**
 * Pending requests waiting since at least $2 ms before $1 (the workflow's clock) whose approvers
 * have not been nudged, or, in their last hour, not nudged about the expiry, and which do not wait
 * on their requester's answer to a question: marked, and the
 * nudge queued in the request's thread (its events: src/domain/reminders.ts). A nudge due at both times at once is one, about the
 * expiry. A replica's update finds the marks of another's and skips those requests.
 */
const REMIND_DUE = `
  with due as (
    update payment_requests r
       set reminded_at = coalesce(r.reminded_at, $1::timestamptz),
           expiry_reminded_at = case when r.expires_at - interval '1 hour' <= $1::timestamptz
                                     then $1::timestamptz else r.expiry_reminded_at end
     where r.status = 'pending' and r.expires_at > $1::timestamptz
       and r.created_at <= $1::timestamptz - make_interval(secs => $2::double precision / 1000)
       and (r.reminded_at is null
            or (r.expiry_reminded_at is null and r.expires_at - interval '1 hour' <= $1::timestamptz))
       -- Not while it waits on its requester: a question asked, no approval since (resubmit.ts).
       and (r.question is null
            or exists (select 1 from approvals a
                        where a.request_id = r.id and a.approved_at > (r.question->>'at')::timestamptz))
    returning r.id, case when r.expiry_reminded_at is not null then 'expiring' else 'reminder' end as event
  ), told as (
    ${enqueueNotice('due', 'due.event')}
  )
  select count(*) as reminded from due`;

/**
 * Queues the reminders due at `now` (see REMIND_DUE) for requests pending at least
 * `remindAfterMs`; resolves with how many.
 */
export async function remindDue(db: Queryable, now: Date, remindAfterMs: number): Promise<number> {
  const [row] = await db.query<{ reminded: unknown }>(REMIND_DUE, [
    now.toISOString(),
    remindAfterMs,
  ]);
  return Number(row?.reminded ?? 0);
}
