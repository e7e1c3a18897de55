import type { UnsettledTwin } from '../../domain/approval.ts';
import type { Database, Queryable } from '../database.ts';
import { iso } from '../database.ts';
import { enqueueCardUpdate } from '../outbox-store.ts';
import { INSERT_AUDIT } from './audit.ts';
import { samePayment, UNSETTLED } from './unsettled-twin.ts';

/**
 * The two writes of an approval, each one statement written only if the request is still
 * pending at the version its rules were checked against, and not expired by the database's
 * clock: a request changed meanwhile writes nothing and the caller reads it again; an expired
 * one is told as such (a slow click may pass its expiry between the read and the write).
 */

/**
 * Whether request $1 has expired, by the database's clock (one clock for every replica), as of
 * the statement: in the claim's transaction, `now()` would be from before its lock wait.
 */
const EXPIRED = `(select expires_at <= statement_timestamp() from payment_requests where id = $1) as expired`;

/** One approval, as both writes take it. */
export interface ApprovalWrite {
  id: number;
  approverId: string;
  /** The request's version when it was read. */
  version: string;
  seal: string;
  /** The step of its request's chain it fills; none outside a chain. */
  step: number | undefined;
  /** The approval's audit detail. */
  detail: Record<string, unknown>;
}

/**
 * The approval counted on the request `bumped` with its audit row: $2 the approver, $4 the
 * seal, $5 the audit detail, `step` the parameter of its chain's step.
 */
const countApproval = (step: string) => `approval as (
    insert into approvals (request_id, approver_id, seal, step) select id, $2, $4, ${step}::integer from bumped
    returning approved_at
  ), approved_audit as (
    ${INSERT_AUDIT}
    select id, $2, 'approved', 'pending', 'pending', fingerprint, $5 from bumped returning id
  )`;

/** An approval that is not the last one needed, and the card redrawn to show it. */
const RECORD_APPROVAL = `
  with bumped as (
    update payment_requests set version = version + 1
     where id = $1 and version = $3 and status = 'pending' and expires_at > statement_timestamp()
    returning id, fingerprint
  ), ${countApproval('$6')}, redraw as (
    ${enqueueCardUpdate('bumped')}
  )
  select (select approved_at from approval) as approved_at, ${EXPIRED}`;

/**
 * The last approval needed and the claim, each with its audit row, written only if payments
 * are not frozen and no twin ($6 is the hold key, $10 the payment key) is unsettled: that twin
 * is returned (`held_by`), so a held claim costs no extra round trip and a refused click's read
 * no extra work. The kill switch is share-locked until
 * commit (a locking read sees the latest freeze), so no freeze lands between this check and
 * the claim. The claim's audit row reads the approval's, so it comes after it in the log.
 */
const APPROVE_AND_CLAIM = `
  with kill_switch as (
    select frozen from freeze_state where id = 1 for share
  ), twin as (
    select json_build_object('id', t.id, 'status', t.status) as held_by
      from payment_requests t
     where ${samePayment('$6', '$10')} and t.id <> $1 and ${UNSETTLED}
       -- Named only while the request is as it was read: if it changed, the caller reads again.
       and exists (select 1 from payment_requests r where r.id = $1 and r.version = $3 and r.status = 'pending')
     order by t.id limit 1
  ), bumped as (
    update payment_requests
       set version = version + 1, status = 'executing', claimed_at = now(), claimed_by = $7,
           claim_token = $8, updated_at = now()
     where id = $1 and version = $3 and status = 'pending' and expires_at > statement_timestamp()
       and not (select frozen from kill_switch)
       and not exists (select 1 from twin)
    returning id, fingerprint, updated_at
  ), ${countApproval('$11')}, claimed_audit as (
    ${INSERT_AUDIT}
    select bumped.id, 'payops', 'claimed', 'pending', 'executing', bumped.fingerprint, $9
      from bumped, approved_audit
  ), redraw as (
    -- "executing" is shown only if the call takes a while: its outcome joins this redraw.
    ${enqueueCardUpdate('bumped', "now() + interval '1 second'")}
  )
  select (select approved_at from approval) as approved_at,
         (select updated_at from bumped) as claimed_updated_at,
         (select held_by from twin) as held_by, ${EXPIRED}`;

/** Not written: changed since it was read (another approval, a decision, a freeze), or expired. */
export type NotWritten = { kind: 'changed' } | { kind: 'expired' };

/** Counts an approval that leaves more to be given: when it was counted, or why it was not. */
export async function recordApproval(
  db: Queryable,
  { id, approverId, version, seal, step, detail }: ApprovalWrite,
): Promise<{ kind: 'recorded'; approvedAt: string } | NotWritten> {
  const [written] = await db.query<{ approved_at: Date | string | null; expired: boolean | null }>(
    RECORD_APPROVAL,
    [id, approverId, version, seal, JSON.stringify(detail), step ?? null],
  );
  if (written?.approved_at) return { kind: 'recorded', approvedAt: iso(written.approved_at) };
  return { kind: written?.expired ? 'expired' : 'changed' };
}

export type ClaimWritten =
  | { kind: 'claimed'; approvedAt: string; claimedAt: string }
  | { kind: 'held'; twin: UnsettledTwin }
  | NotWritten;

/**
 * Counts the last approval needed and claims the request for `claimedBy` with `claimToken`.
 * It first waits for any other claim of the same write or payment (its hold and payment keys,
 * locked in one order so two claims never wait on each other) to commit, so that its own
 * statement, reading after, sees it as a twin: two pending twins approved at the same instant
 * on two replicas can never both be claimed.
 */
export async function approveAndClaim(
  db: Database,
  approval: ApprovalWrite & {
    holdKey: string;
    paymentKey: string | undefined;
    claimedBy: string;
    claimToken: string;
  },
): Promise<ClaimWritten> {
  const { id, holdKey, paymentKey, claimedBy } = approval;
  const keys = [holdKey, ...(paymentKey === undefined ? [] : [paymentKey])].sort();
  const [written] = await db.transaction(async (tx) => {
    for (const key of keys) {
      await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    }
    return tx.query<{
      approved_at: Date | string | null;
      claimed_updated_at: Date | string | null;
      held_by: { id: unknown; status: UnsettledTwin['status'] } | string | null;
      expired: boolean | null;
    }>(APPROVE_AND_CLAIM, [
      id,
      approval.approverId,
      approval.version,
      approval.seal,
      JSON.stringify(approval.detail),
      holdKey,
      claimedBy,
      approval.claimToken,
      JSON.stringify({ claimedBy }),
      paymentKey ?? null,
      approval.step ?? null,
    ]);
  });
  if (!written?.approved_at) {
    if (written?.expired) return { kind: 'expired' };
    if (!written?.held_by) return { kind: 'changed' };
    const twin =
      typeof written.held_by === 'string' ? JSON.parse(written.held_by) : written.held_by;
    return { kind: 'held', twin: { id: Number(twin.id), status: twin.status } };
  }
  if (written.claimed_updated_at === null) {
    throw new Error(`request ${id}: approved without its claim`);
  }
  return {
    kind: 'claimed',
    approvedAt: iso(written.approved_at),
    claimedAt: iso(written.claimed_updated_at),
  };
}
