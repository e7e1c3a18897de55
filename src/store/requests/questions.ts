import type { PaymentRequest } from '../../domain/approval.ts';
import type { Queryable } from '../database.ts';
import { enqueueCardUpdate } from '../outbox-store.ts';
import { assertTransition, INSERT_AUDIT } from './audit.ts';
import {
  REQUEST_COLUMNS,
  REQUEST_TABLE_COLUMNS,
  type RequestDb,
  type RequestRow,
  toRequest,
} from './rows.ts';

/**
 * An approver's question, and the requester's edit that resubmits the request: the two ways a
 * pending request goes back to its requester (src/domain/resubmit.ts).
 */

/**
 * A pending request's question, by $2, recorded on it (it stays pending) with its
 * `question_asked` audit row, its card redrawn and the question in its thread (the notice's
 * body: a later question replaces the request's, not what was told), in one statement.
 */
const ASK = `
  with asked as (
    update payment_requests
       set question = jsonb_build_object('by', $2::text, 'at', now(), 'text', $3::text), updated_at = now()
     where id = $1 and status = 'pending'
     returning ${REQUEST_TABLE_COLUMNS}
  ), asked_audit as (
    ${INSERT_AUDIT}
    select id, $2, 'question_asked', 'pending', 'pending', fingerprint, jsonb_build_object('question', $3::text) from asked
  ), redraw as (
    ${enqueueCardUpdate('asked')}
  ), told as (
    insert into slack_outbox (request_id, kind, event, body, give_up_at)
    select id, 'notice', 'question', jsonb_build_object('by', $2::text, 'text', $3::text), now() + interval '24 hours' from asked
  )
  select ${REQUEST_COLUMNS} from asked r`;

/** The question recorded; undefined when the request was no longer pending. */
export async function askQuestion(
  { db, cipher }: RequestDb,
  { id, actor, question }: { id: number; actor: string; question: string },
): Promise<PaymentRequest | undefined> {
  const [asked] = await db.query<RequestRow>(ASK, [id, actor, question]);
  return asked ? toRequest(asked, cipher) : undefined;
}

/**
 * $1 (pending, not past its expiry, $3's) → superseded by the new request $2, which is linked
 * to it, with its audit row, its card redrawn and its thread told.
 */
const SUPERSEDE = `
  with superseded as (
    update payment_requests set status = 'superseded', decided_by = $3, updated_at = now(),
           labels = coalesce(labels, '{}'::jsonb) || jsonb_build_object('supersededBy', $2::bigint)
     where id = $1 and status = 'pending' and requester_id = $3 and expires_at > now()
     returning id, fingerprint
  ), linked as (
    update payment_requests set supersedes = $1 where id = $2 and exists (select 1 from superseded)
  ), superseded_audit as (
    ${INSERT_AUDIT}
    select id, $3, 'superseded', 'pending', 'superseded', fingerprint, jsonb_build_object('supersededBy', $2::bigint) from superseded
  ), redraw as (
    ${enqueueCardUpdate('superseded')}
  ), told as (
    insert into slack_outbox (request_id, kind, event, give_up_at)
    select id, 'notice', 'superseded', now() + interval '24 hours' from superseded
  )
  select count(*) as superseded from superseded`;

/** Its old request could not be superseded (decided, expired, not theirs): nothing is stored. */
export class NotSupersededError extends Error {
  override name = 'NotSupersededError';
}

/**
 * In the new request's transaction: the old one superseded by it, or `NotSupersededError`, so
 * that the new one is not stored either.
 */
export async function supersede(
  tx: Queryable,
  { oldId, newId, requesterId }: { oldId: number; newId: number; requesterId: string },
): Promise<void> {
  assertTransition(oldId, 'pending', 'superseded');
  const [row] = await tx.query<{ superseded: unknown }>(SUPERSEDE, [oldId, newId, requesterId]);
  if (Number(row?.superseded) !== 1) {
    throw new NotSupersededError(`request ${oldId} could not be superseded by ${newId}`);
  }
}
