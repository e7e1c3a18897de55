import type { PaymentRequest, Reconciliation } from '../../domain/approval.ts';
import { startFollowing } from '../follow-store.ts';
import { audit } from './audit.ts';
import { paidPayees } from './payees.ts';
import { loadRequest, type RequestDb, type RequestRow, SELECT_REQUEST, toRequest } from './rows.ts';
import { tellSlack } from './tell-slack.ts';

/** Unknown outcomes: the ones still to check, and what a check or a person learnt of one. */

/**
 * What a read, or a person (`resolvedBy`), learnt of an unknown outcome; never a new status.
 * A person's word (`resolvedBy`) is final: a later automatic check does not replace it. A read's
 * finding ($3) is kept only over the record the read started from ($4), so that two replicas'
 * sweeps checking one request at once record it, and tell it, once.
 */
const RECORD_RECONCILIATION = `
  update payment_requests set reconciliation = $2, updated_at = now()
   where id = $1 and status = 'unknown'
     and (reconciliation is null or reconciliation->>'resolvedBy' is null)
     and (not $3::boolean or reconciliation is not distinct from $4::jsonb)
  returning fingerprint, status`;

/**
 * Unknown outcomes still unresolved — never checked, or not found / check failed at least $1 ms
 * ago, and not settled by a person — sent (or claimed) within the last $2 ms, oldest check
 * first: a request approved late in its life is looked for as long as one approved at once.
 */
const UNRESOLVED = `
  ${SELECT_REQUEST}
   where r.status = 'unknown'
     and coalesce(r.sent_at, r.claimed_at, r.created_at)
         > now() - make_interval(secs => $2::double precision / 1000)
     and (r.reconciliation is null
          or (r.reconciliation->>'result' in ('not_found', 'check_failed')
              and r.reconciliation->>'resolvedBy' is null
              and (r.reconciliation->>'checkedAt')::timestamptz
                  <= now() - make_interval(secs => $1::double precision / 1000)))
   order by r.reconciliation->>'checkedAt' nulls first
   limit 20`;

/**
 * Those of the provider ids $2 that are requests' other than $1: named by a submitted write's
 * answer, found by a read, or learnt by following.
 */
const PROVIDER_IDS_TAKEN = `
  with listed as (select unnest($2::text[]) as id)
  select r.outcome->>'providerId' as id from payment_requests r
   where r.id <> $1 and r.outcome->>'providerId' in (select id from listed)
  union
  select r.reconciliation->>'providerId' from payment_requests r
   where r.id <> $1 and r.reconciliation->>'result' = 'found'
     and r.reconciliation->>'providerId' in (select id from listed)
  union
  select f.provider_id from follow_ups f
   where f.request_id <> $1 and f.provider_id in (select id from listed)`;

/**
 * Recorded, unless the request is no longer unknown, a person resolved it, or (`checkedFrom`)
 * another check recorded something since this one read the request: then undefined.
 */
export function recordReconciliation(
  { db, cipher }: RequestDb,
  {
    id,
    reconciliation,
    checkedFrom,
  }: {
    id: number;
    reconciliation: Reconciliation;
    checkedFrom?: { reconciliation: Reconciliation | undefined } | undefined;
  },
): Promise<PaymentRequest | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ fingerprint: string; status: string }>(RECORD_RECONCILIATION, [
      id,
      JSON.stringify(reconciliation),
      checkedFrom !== undefined,
      checkedFrom?.reconciliation ? JSON.stringify(checkedFrom.reconciliation) : null,
    ]);
    if (!row) return undefined;
    const { resolvedBy } = reconciliation;
    if (reconciliation.result === 'found') {
      await tx.query(paidPayees('payment_requests where id = $1'), [id]);
    }
    // Found by a read: its record is followed from now on, like a submitted write's.
    if (reconciliation.result === 'found' && resolvedBy === undefined) {
      await tx.query(
        startFollowing(
          '(select id, operation_id from payment_requests where id = $1)',
          '$2::text',
          '$3::text',
        ),
        [id, reconciliation.providerId ?? null, reconciliation.providerStatus ?? null],
      );
    }
    // The requester is told when something was learnt, not at every fruitless look.
    const learnt =
      resolvedBy !== undefined || ['found', 'ambiguous'].includes(reconciliation.result);
    await tellSlack(tx, {
      requestId: id,
      event: learnt ? (resolvedBy ? 'resolved' : 'reconciled') : undefined,
    });
    await audit(tx, {
      requestId: id,
      actor: resolvedBy ?? 'payops',
      event: resolvedBy ? 'resolved' : 'reconciled',
      fromStatus: row.status,
      toStatus: row.status,
      fingerprint: row.fingerprint,
      detail: { ...reconciliation },
    });
    return loadRequest(tx, { cipher, id });
  });
}

export async function listUnresolved(
  { db, cipher }: RequestDb,
  { recheckAfterMs, forMs }: { recheckAfterMs: number; forMs: number },
): Promise<PaymentRequest[]> {
  const rows = await db.query<RequestRow>(UNRESOLVED, [recheckAfterMs, forMs]);
  return rows.map((row) => toRequest(row, cipher));
}

/** Which of `ids` are the provider's ids of records other requests than `requestId` made. */
export async function providerIdsTaken(
  { db }: RequestDb,
  { requestId, ids }: { requestId: number; ids: readonly string[] },
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(PROVIDER_IDS_TAKEN, [requestId, ids]);
  return new Set(rows.map((row) => row.id));
}
