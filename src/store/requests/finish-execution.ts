import type { PaymentRequest, ProviderOutcome } from '../../domain/approval.ts';
import { startFollowing } from '../follow-store.ts';
import { enqueueCardUpdate, enqueueNotice } from '../outbox-store.ts';
import { assertTransition, audit, INSERT_AUDIT } from './audit.ts';
import { paidPayees } from './payees.ts';
import {
  loadRequest,
  REQUEST_COLUMNS,
  REQUEST_TABLE_COLUMNS,
  type RequestDb,
  type RequestRow,
  toRequest,
} from './rows.ts';
import { tellSlack } from './tell-slack.ts';

/**
 * executing → $2 with its outcome and audit row, in one statement; no row if not executing. A
 * submitted write's payee is from now on one payops has paid.
 */
const FINISH_EXECUTION = `
  with finished as (
    update payment_requests set status = $2, outcome = $3, updated_at = now()
     where id = $1 and status = 'executing' returning ${REQUEST_TABLE_COLUMNS}, payee_tag, payee_name_tag
  ), paid as (
    ${paidPayees("finished where $2 = 'submitted'")}
  ), finished_audit as (
    ${INSERT_AUDIT}
    select id, 'payops', $2, 'executing', $2, fingerprint, $3 from finished
  ), redraw as (
    ${enqueueCardUpdate('finished')}
  ), told as (
    ${enqueueNotice('finished', '$2')}
  ), followed as (
    ${startFollowing("(select id, operation_id from finished where $2 = 'submitted')", "$3::jsonb->>'providerId'", "$3::jsonb->>'providerStatus'")}
  )
  select ${REQUEST_COLUMNS} from finished r`;

/** An outcome that came after the request stopped executing, kept beside its status. */
const LATE_OUTCOME = `
  update payment_requests
     set outcome = coalesce(outcome, '{}'::jsonb) || jsonb_build_object('late', $2::jsonb), updated_at = now()
   where id = $1 returning fingerprint, status`;

/**
 * executing → submitted | failed | unknown: the one call's result. If the request is no longer
 * executing (a lease ran out and another process called it unknown), the outcome is still
 * kept, as `outcome.late` with its own audit row: what the provider said is never dropped.
 */
export async function finishExecution(
  { db, cipher }: RequestDb,
  {
    id,
    to,
    outcome,
  }: { id: number; to: 'submitted' | 'failed' | 'unknown'; outcome: ProviderOutcome },
): Promise<PaymentRequest | undefined> {
  assertTransition(id, 'executing', to);
  const [finished] = await db.query<RequestRow>(FINISH_EXECUTION, [
    id,
    to,
    JSON.stringify(outcome),
  ]);
  if (finished) return toRequest(finished, cipher);
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ fingerprint: string; status: string }>(LATE_OUTCOME, [
      id,
      JSON.stringify({ ...outcome, result: to }),
    ]);
    if (!row) return undefined;
    await tellSlack(tx, { requestId: id, event: 'late_outcome' });
    // The audit row last: the chain's head is locked till commit, by every audited change.
    await audit(tx, {
      requestId: id,
      actor: 'payops',
      event: 'late_outcome',
      fromStatus: row.status,
      toStatus: row.status,
      fingerprint: row.fingerprint,
      detail: { ...outcome, result: to },
    });
    return loadRequest(tx, { cipher, id });
  });
}
