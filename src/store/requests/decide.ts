import type { PaymentRequest } from '../../domain/approval.ts';
import { enqueueCardUpdate, enqueueNotice } from '../outbox-store.ts';
import { assertTransition, INSERT_AUDIT } from './audit.ts';
import {
  REQUEST_COLUMNS,
  REQUEST_TABLE_COLUMNS,
  type RequestDb,
  type RequestRow,
  toRequest,
} from './rows.ts';

/**
 * pending → $2 (rejected, cancelled) by $3 with its audit row (the event is the new status),
 * in one statement; no row if not pending, or if $5 names someone other than its requester.
 */
const DECIDE = `
  with decided as (
    update payment_requests set status = $2, decided_by = $3, reason = $4, updated_at = now()
     where id = $1 and status = 'pending' and ($5::text is null or requester_id = $5)
     returning ${REQUEST_TABLE_COLUMNS}
  ), decided_audit as (
    ${INSERT_AUDIT}
    select id, $3, $2, 'pending', $2, fingerprint, $6 from decided
  ), redraw as (
    ${enqueueCardUpdate('decided')}
  ), told as (
    ${enqueueNotice('decided', '$2')}
  )
  select ${REQUEST_COLUMNS} from decided r`;

/**
 * pending → `to` by `actor`, with its `reason`; only by `onlyRequester` when given. Undefined if
 * it is no longer pending (or not theirs).
 */
export async function decide(
  { db, cipher }: RequestDb,
  {
    id,
    actor,
    to,
    reason,
    onlyRequester,
  }: {
    id: number;
    actor: string;
    to: 'rejected' | 'cancelled';
    reason?: string | undefined;
    onlyRequester?: string | undefined;
  },
): Promise<PaymentRequest | undefined> {
  assertTransition(id, 'pending', to);
  const [decided] = await db.query<RequestRow>(DECIDE, [
    id,
    to,
    actor,
    reason ?? null,
    onlyRequester ?? null,
    reason ? JSON.stringify({ reason }) : null,
  ]);
  return decided ? toRequest(decided, cipher) : undefined;
}
