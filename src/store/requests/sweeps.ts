import type { PaymentRequest, RequestStatus } from '../../domain/approval.ts';
import { audit } from './audit.ts';
import { loadRequest, type RequestDb } from './rows.ts';
import { tellSlack } from './tell-slack.ts';

/** The timed changes of status no click makes: expiry, and executions that outlived the lease. */

/** pending requests past their expiry → expired. */
export function expireDue(store: RequestDb, { now }: { now: Date }): Promise<PaymentRequest[]> {
  return sweep(store, {
    sql: `update payment_requests set status = 'expired', updated_at = now()
          where status = 'pending' and expires_at <= $1 returning id, fingerprint`,
    parameter: now.toISOString(),
    from: 'pending',
    to: 'expired',
  });
}

/**
 * Requests left `executing` longer than the lease (by the database's clock, the one that
 * stamped the claim). One whose call was let out (`sent_at`), or claimed by a version of
 * payops without the fence, may or may not have reached the provider: it becomes `unknown`,
 * never executed again. One never let out cannot be sent any more (`markSending`): it failed,
 * nothing was sent.
 */
export async function recoverStale(
  store: RequestDb,
  { leaseMs }: { leaseMs: number },
): Promise<PaymentRequest[]> {
  const outlived = `status = 'executing' and claimed_at <= now() - make_interval(secs => $1::double precision / 1000)`;
  const unsent = await sweep(store, {
    sql: `update payment_requests set status = 'failed',
            outcome = coalesce(outcome, '{}'::jsonb) || '{"message": "it was never sent: payops stopped or failed between the claim and the call. Nothing was sent; make a new request if it is still wanted."}'::jsonb,
            updated_at = now()
          where ${outlived} and claim_token is not null and sent_at is null
          returning id, fingerprint`,
    parameter: leaseMs,
    from: 'executing',
    to: 'failed',
  });
  const outcomeUnknown = await sweep(store, {
    sql: `update payment_requests set status = 'unknown',
            outcome = coalesce(outcome, '{}'::jsonb) || '{"message": "its execution outlived the lease: payops stopped, or the call hung"}'::jsonb,
            updated_at = now()
          where ${outlived}
          returning id, fingerprint`,
    parameter: leaseMs,
    from: 'executing',
    to: 'unknown',
  });
  return [...unsent, ...outcomeUnknown];
}

/**
 * Runs `sql` (an update `from` → `to` returning `id, fingerprint`, with one parameter) and gives
 * each request it changed its Slack messages and audit row, in one transaction.
 */
function sweep(
  { db, cipher }: RequestDb,
  {
    sql,
    parameter,
    from,
    to,
  }: { sql: string; parameter: string | number; from: RequestStatus; to: RequestStatus },
): Promise<PaymentRequest[]> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: unknown; fingerprint: string }>(sql, [parameter]);
    const swept: PaymentRequest[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      await tellSlack(tx, { requestId: id, event: to });
      await audit(tx, {
        requestId: id,
        actor: 'payops',
        event: to,
        fromStatus: from,
        toStatus: to,
        fingerprint: row.fingerprint,
      });
      swept.push((await loadRequest(tx, { cipher, id })) as PaymentRequest);
    }
    return swept;
  });
}
