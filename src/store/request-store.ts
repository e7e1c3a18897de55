import { randomUUID } from 'node:crypto';
import type { AnswerTarget } from '../app/outbox-port.ts';
import {
  canTransition,
  type PaymentRequest,
  type ProviderOutcome,
  type Reconciliation,
  type RequestLabels,
  type RequestStatus,
  type UnsettledTwin,
} from '../domain/approval.ts';
import type { WriteOperationId } from '../domain/operations.ts';
import type { Database, Queryable } from './database.ts';
import {
  FOLLOW_STATE,
  type FollowStateRow,
  startFollowing,
  toProviderFollow,
} from './follow-store.ts';
import { enqueueCardUpdate, enqueueNotice } from './outbox-store.ts';
import type { PayloadCipher } from './payload-cipher.ts';

/**
 * Payment requests in SQL. Every change of status is one conditional UPDATE (`… where
 * status = 'pending'`) under a row lock, written with its audit row in the same transaction:
 * double clicks, redeliveries, two approvers at once and several replicas on one database
 * can never claim a request twice.
 */

export interface NewRequest {
  operationId: WriteOperationId;
  path: Record<string, string>;
  body: string | undefined;
  fingerprint: string;
  holdKey: string;
  /** The keyed tags of the destination paid and of the name it is paid under, if any. */
  payee?: { tag: string; nameTag: string | undefined } | undefined;
  requesterId: string;
  requiredApprovals: number;
  expiresAt: Date;
  requesterChannelId: string | undefined;
  labels?: RequestLabels | undefined;
  /** Where the requester's confirmation goes (the outbox delivers it). */
  answerTo?: AnswerTarget | undefined;
}

export interface FreezeState {
  frozen: boolean;
  reason: string | undefined;
  changedBy: string | undefined;
  changedAt: string | undefined;
}

export interface AuditEntry {
  id: number;
  at: string;
  requestId: number | undefined;
  actor: string;
  event: string;
  fromStatus: string | undefined;
  toStatus: string | undefined;
  fingerprint: string | undefined;
  detail: Record<string, unknown> | undefined;
}

export type ApproveResult =
  | { kind: 'not_found' }
  | { kind: 'refused'; reason: string; request: PaymentRequest }
  | { kind: 'held'; twin: UnsettledTwin; request: PaymentRequest }
  | { kind: 'frozen'; freeze: FreezeState; request: PaymentRequest }
  /** Counted; more approvals are needed. */
  | { kind: 'recorded'; request: PaymentRequest }
  /**
   * Counted, and it was the last one needed: this caller alone must now execute it, proving it
   * still holds the claim with `claimToken` (`markSending`).
   */
  | { kind: 'claimed'; request: PaymentRequest; claimToken: string };

/**
 * Checked on the request as read (the approval counts only if it is unchanged since): why this
 * approval must not count, or undefined.
 */
export type ApprovalRule = (request: PaymentRequest, approverId: string) => string | undefined;

/** What an approval is checked against and sealed with, on the request as read. */
export interface ApprovalChecks {
  refusal: ApprovalRule;
  /**
   * Asked only when this approval could complete the request: how many of its earlier
   * approvals still count (their approvers may no longer be approvers), or why it cannot tell.
   */
  stillCounted(request: PaymentRequest): Promise<{ counted: number } | { refusal: string }>;
  /** The seal of what this approver approves (`Signer.approvalSeal`). */
  seal(request: PaymentRequest, approverId: string): string;
}

/**
 * Columns are named, never `*`: a prepared statement whose result type changed (a replica
 * migrated a table) fails, and one naming its columns does not.
 */
const REQUEST_TABLE_COLUMNS = `id, operation_id, path_params, body, fingerprint, hold_key, requester_id,
  status, required_approvals, created_at, expires_at, updated_at, channel_id, message_ts,
  decided_by, reason, outcome, reconciliation, labels`;

/** The same columns of a row named `r`. */
const REQUEST_ROW_COLUMNS = REQUEST_TABLE_COLUMNS.replace(/(\w+)/g, 'r.$1');

const REQUEST_COLUMNS = `${REQUEST_ROW_COLUMNS}, coalesce(
    (select json_agg(json_build_object('userId', a.approver_id, 'at', a.approved_at, 'seal', a.seal) order by a.approved_at)
       from approvals a where a.request_id = r.id), '[]'::json) as approval_list,
  ${FOLLOW_STATE} as follow_state`;

/** An audit row's columns as every statement that writes one names them. */
const INSERT_AUDIT =
  'insert into audit_log (request_id, actor, event, from_status, to_status, fingerprint, detail)';

const AUDIT_COLUMNS =
  'id, at, request_id, actor, event, from_status, to_status, fingerprint, detail';

const SELECT_REQUEST = `select ${REQUEST_COLUMNS} from payment_requests r`;

/**
 * Whether request `t` is unsettled (see `UnsettledTwin`; `outcomeSettled` in TypeScript); the
 * partial index of migration 0004 serves it.
 */
const UNSETTLED = `(t.status = 'executing' or (t.status = 'unknown'
  and coalesce(t.reconciliation->>'result', 'unchecked') <> 'found'
  and t.reconciliation->>'resolvedBy' is null))`;

/** The kill switch's row (`freeze_state f`), as `FreezeRow` reads it. */
const FREEZE_COLUMNS = `f.frozen as freeze_frozen, f.reason as freeze_reason,
  f.changed_by as freeze_changed_by, f.changed_at as freeze_changed_at`;

/**
 * A request and the kill switch in one round trip (`and r.id = $1` to be appended), with the
 * request's version, which approve checks its write against.
 */
const SELECT_REQUEST_AND_FREEZE = `
  select ${REQUEST_COLUMNS}, ${FREEZE_COLUMNS}, r.version
  from payment_requests r cross join freeze_state f
  where f.id = 1`;

/**
 * One approval counted and, when it is the last one needed ($5), the claim — each with its
 * audit row — in one statement, written only if the request is still pending at version $8
 * (the one its rules were checked against) and, for a claim, payments are not frozen and no
 * twin ($3 is the hold key) is unsettled: that twin is returned (`held_by`), so a held
 * claim costs no extra round trip and a refused click's read no extra work. For a
 * claim the kill switch is share-locked until commit (a locking read sees the latest freeze),
 * so no freeze lands between this check and the claim; a request changed meanwhile writes
 * nothing (no row in `bumped`) and the caller reads it again. The claim's audit row reads the
 * approval's, so it comes after it in the log.
 */
const APPROVE_AND_CLAIM = `
  with kill_switch as (
    select frozen from freeze_state where id = 1 for share
  ), twin as (
    select json_build_object('id', t.id, 'status', t.status) as held_by
      from payment_requests t
     where $5::boolean and t.hold_key = $3 and t.id <> $1 and ${UNSETTLED}
       -- Named only while the request is as it was read: if it changed, the caller reads again.
       and exists (select 1 from payment_requests r where r.id = $1 and r.version = $8 and r.status = 'pending')
     order by t.id limit 1
  ), bumped as (
    update payment_requests
       set version = version + 1,
           status = case when $5::boolean then 'executing' else status end,
           claimed_at = case when $5::boolean then now() else claimed_at end,
           claimed_by = case when $5::boolean then $6 else claimed_by end,
           claim_token = case when $5::boolean then $9 else claim_token end,
           updated_at = case when $5::boolean then now() else updated_at end
     where id = $1 and version = $8 and status = 'pending'
       and not ($5::boolean and (select frozen from kill_switch))
       and not exists (select 1 from twin)
    returning id, fingerprint, updated_at
  ), approval as (
    insert into approvals (request_id, approver_id, seal) select id, $2, $10 from bumped
    returning approved_at
  ), approved_audit as (
    ${INSERT_AUDIT}
    select id, $2, 'approved', 'pending', 'pending', fingerprint, $4 from bumped returning id
  ), claimed_audit as (
    ${INSERT_AUDIT}
    select bumped.id, 'payops', 'claimed', 'pending', 'executing', bumped.fingerprint, $7
      from bumped, approved_audit where $5::boolean
  ), redraw as (
    -- A claim's "executing" is shown only if the call takes a while: its outcome joins this redraw.
    ${enqueueCardUpdate('bumped', "now() + case when $5::boolean then interval '1 second' else interval '0' end")}
  )
  select (select approved_at from approval) as approved_at,
         (select updated_at from bumped where $5::boolean) as claimed_updated_at,
         (select held_by from twin) as held_by`;

/** Reads and conditional writes of one approval before it gives up: each retry means another
 * click changed the request meanwhile, so this many in a row is a storm, not bad luck. */
const APPROVE_ATTEMPTS = 20;

/**
 * pending → $2 (rejected, cancelled) by $3 with its audit row, in one statement; no row if not
 * pending, or if $5 names someone other than its requester.
 */
const DECIDE = `
  with decided as (
    update payment_requests set status = $2, decided_by = $3, reason = $4, updated_at = now()
     where id = $1 and status = 'pending' and ($5::text is null or requester_id = $5)
     returning ${REQUEST_TABLE_COLUMNS}
  ), decided_audit as (
    ${INSERT_AUDIT}
    select id, $3, $6, 'pending', $2, fingerprint, $7 from decided
  ), redraw as (
    ${enqueueCardUpdate('decided')}
  ), told as (
    ${enqueueNotice('decided', '$2')}
  )
  select ${REQUEST_COLUMNS} from decided r`;

/** The payee of each row of `rows` (with `payee_tag`, `payee_name_tag`, `id`), as paid. */
function paidPayees(rows: string): string {
  return `insert into paid_payees (payee_tag, name_tag, request_id)
    select payee_tag, coalesce(payee_name_tag, ''), id from ${rows} and payee_tag is not null
    on conflict do nothing`;
}

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

/**
 * A new request (pending, no approvals yet) with its `requested` audit row, in one statement;
 * returned as `load` reads it.
 */
const CREATE_REQUEST = `
  with created as (
    insert into payment_requests
      (operation_id, path_params, body, fingerprint, requester_id, required_approvals, expires_at, requester_channel_id, labels, hold_key, payee_tag, payee_name_tag)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $12, $13, $14)
    returning ${REQUEST_TABLE_COLUMNS}
  ), created_audit as (
    ${INSERT_AUDIT}
    select id, $5, 'requested', null, 'pending', $4, $10 from created
  ), card as (
    insert into slack_outbox (request_id, kind, give_up_at) select id, 'card', expires_at from created
  ), confirmation as (
    -- The response_url of a command lives 30 minutes; an ephemeral later than that helps nobody.
    insert into slack_outbox (request_id, kind, target, give_up_at)
    select id, 'confirmation', $11::jsonb, now() + interval '30 minutes' from created
     where $11::jsonb is not null
  )
  select ${REQUEST_ROW_COLUMNS}, '[]'::json as approval_list
    from created r`;

export class RequestStore {
  readonly #db: Database;
  readonly #cipher: PayloadCipher;

  /** `cipher` seals every body stored and opens it when read. */
  constructor(db: Database, cipher: PayloadCipher) {
    this.#db = db;
    this.#cipher = cipher;
  }

  /** The request and its audit row in one statement: one round trip, nothing half-written. */
  async create(request: NewRequest): Promise<PaymentRequest> {
    const [row] = await this.#db.query<Row>(CREATE_REQUEST, [
      request.operationId,
      JSON.stringify(request.path),
      request.body === undefined ? null : this.#cipher.seal(request.body),
      request.fingerprint,
      request.requesterId,
      request.requiredApprovals,
      request.expiresAt.toISOString(),
      request.requesterChannelId ?? null,
      request.labels ? JSON.stringify(request.labels) : null,
      JSON.stringify({
        operationId: request.operationId,
        requiredApprovals: request.requiredApprovals,
      }),
      request.answerTo ? JSON.stringify(request.answerTo) : null,
      request.holdKey,
      request.payee?.tag ?? null,
      request.payee?.nameTag ?? null,
    ]);
    if (!row) throw new Error('the new request was not returned by its insert');
    return this.#toRequest(row);
  }

  get(id: number): Promise<PaymentRequest | undefined> {
    return this.#load(this.#db, id);
  }

  /**
   * What this deployment has paid before: whether the destination `payeeTag`, and at which
   * other destinations the name `nameTag`.
   */
  async payeeHistory(
    payeeTag: string,
    nameTag: string | undefined,
  ): Promise<{ paidBefore: boolean; nameElsewhere: string[] }> {
    const [row] = await this.#db.query<{ paid: boolean; elsewhere: string[] | null }>(
      `select exists (select 1 from paid_payees where payee_tag = $1) as paid,
              (select array_agg(distinct payee_tag) from paid_payees
                where $2::text is not null and name_tag = $2 and payee_tag <> $1) as elsewhere`,
      [payeeTag, nameTag ?? null],
    );
    return { paidBefore: row?.paid ?? false, nameElsewhere: row?.elsewhere ?? [] };
  }

  /**
   * Gives the requests that can hold others (being sent, or outcome unknown) and still carry
   * the byte fingerprint an earlier version used as their hold key (migration 0006) the hold
   * key of today, so that a write whose outcome was unknown before an upgrade still holds
   * the same payment after it. Resolves with how many it changed.
   */
  async rekeyLegacyHolds(
    holdKeyOf: (request: Pick<PaymentRequest, 'operationId' | 'path' | 'body'>) => string,
  ): Promise<number> {
    const rows = await this.#db.query<Pick<Row, 'id' | 'operation_id' | 'path_params' | 'body'>>(
      `select id, operation_id, path_params, body from payment_requests
        where hold_key = fingerprint and status in ('executing', 'unknown')`,
    );
    for (const row of rows) {
      const holdKey = holdKeyOf({
        operationId: row.operation_id as WriteOperationId,
        path: row.path_params ?? {},
        body: row.body === null ? undefined : this.#cipher.open(row.body),
      });
      await this.#db.query(
        'update payment_requests set hold_key = $2 where id = $1 and hold_key = fingerprint',
        [row.id, holdKey],
      );
    }
    return rows.length;
  }

  /** The first unsettled request for the same write, if any (see `UnsettledTwin`). */
  async unsettledTwin(holdKey: string): Promise<UnsettledTwin | undefined> {
    const [row] = await this.#db.query<{ id: unknown; status: UnsettledTwin['status'] }>(
      `select t.id, t.status from payment_requests t
        where t.hold_key = $1 and ${UNSETTLED} order by t.id limit 1`,
      [holdKey],
    );
    return row ? { id: Number(row.id), status: row.status } : undefined;
  }

  /** A request and the freeze as they are now, in one round trip: what its message shows. */
  async getWithFreeze(
    id: number,
  ): Promise<{ request: PaymentRequest; freeze: FreezeState } | undefined> {
    const [row] = await this.#db.query<Row & FreezeRow>(
      `${SELECT_REQUEST_AND_FREEZE} and r.id = $1`,
      [id],
    );
    return row ? { request: this.#toRequest(row), freeze: toFreeze(row) } : undefined;
  }

  async listPending(limit: number): Promise<{ requests: PaymentRequest[]; total: number }> {
    const rows = await this.#db.query<Row>(
      `${SELECT_REQUEST} where r.status = 'pending' order by r.id limit $1`,
      [limit],
    );
    const [count] = await this.#db.query<{ total: unknown }>(
      "select count(*) as total from payment_requests where status = 'pending'",
    );
    return { requests: rows.map((row) => this.#toRequest(row)), total: Number(count?.total ?? 0) };
  }

  /**
   * Counts one person's approval, once. When it completes the required number — and payments
   * are not frozen — the request moves to `executing` in the same statement and the caller
   * is told it alone holds the claim. A refused or frozen click changes nothing.
   */
  async approve(
    id: number,
    approverId: string,
    claimedBy: string,
    checks: ApprovalChecks,
  ): Promise<ApproveResult> {
    // Optimistic: the rules run on the request as read, and the write counts only if nothing
    // changed since (its version), so no transaction holds a lock across a round trip.
    const claimToken = randomUUID();
    for (let attempt = 1; attempt <= APPROVE_ATTEMPTS; attempt++) {
      const [row] = await this.#db.query<Row & FreezeRow & { version: unknown }>(
        `${SELECT_REQUEST_AND_FREEZE} and r.id = $1`,
        [id],
      );
      if (!row) return { kind: 'not_found' };
      const request = this.#toRequest(row);
      const refusal = checks.refusal(request, approverId);
      if (refusal) return { kind: 'refused', reason: refusal, request };
      let counted = request.approvals.length;
      if (counted + 1 >= request.requiredApprovals) {
        const earlier = await checks.stillCounted(request);
        if ('refusal' in earlier) return { kind: 'refused', reason: earlier.refusal, request };
        counted = earlier.counted;
      }
      const complete = counted + 1 >= request.requiredApprovals;
      const seal = checks.seal(request, approverId);
      if (complete) {
        const freeze = toFreeze(row);
        if (freeze.frozen) return { kind: 'frozen', freeze, request };
        assertTransition(id, 'pending', 'executing');
      }
      const parameters = [
        id,
        approverId,
        request.holdKey,
        JSON.stringify({
          approvals: counted + 1,
          required: request.requiredApprovals,
          ...(counted < request.approvals.length && {
            notCounted: request.approvals.length - counted,
          }),
        }),
        complete,
        claimedBy,
        JSON.stringify({ claimedBy }),
        String(row.version),
        claimToken,
        seal,
      ];
      type Written = {
        approved_at: Date | string | null;
        claimed_updated_at: Date | string | null;
      } & HeldRow;
      // A claim first waits for any other claim of the same payment (its hold key) to commit,
      // so that its own statement, reading after, sees it as a twin: two pending twins approved
      // at the same instant on two replicas can never both be claimed.
      const [written] = complete
        ? await this.#db.transaction(async (tx) => {
            await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
              request.holdKey,
            ]);
            return tx.query<Written>(APPROVE_AND_CLAIM, parameters);
          })
        : await this.#db.query<Written>(APPROVE_AND_CLAIM, parameters);
      if (!written?.approved_at) {
        const twin = written && toTwin(written);
        if (twin) return { kind: 'held', twin, request };
        // Changed since it was read (another approval, a decision, a freeze): read it again.
        continue;
      }
      const approvals = [
        ...request.approvals,
        { userId: approverId, at: iso(written.approved_at), seal },
      ];
      if (!complete) return { kind: 'recorded', request: { ...request, approvals } };
      if (written.claimed_updated_at === null) {
        throw new Error(`request ${id}: approved without its claim`);
      }
      const claimed: PaymentRequest = {
        ...request,
        approvals,
        status: 'executing',
        updatedAt: iso(written.claimed_updated_at),
      };
      return { kind: 'claimed', request: claimed, claimToken };
    }
    throw new Error(
      `request ${id} changed ${APPROVE_ATTEMPTS} times while being approved; nothing was counted`,
    );
  }

  /** pending → rejected, with the approver and the reason. */
  reject(id: number, actor: string, reason: string): Promise<PaymentRequest | undefined> {
    return this.#decide(id, actor, 'rejected', reason, 'rejected');
  }

  /** pending → cancelled, by its requester only. */
  cancel(id: number, actor: string): Promise<PaymentRequest | undefined> {
    return this.#decide(id, actor, 'cancelled', undefined, 'cancelled', actor);
  }

  async #decide(
    id: number,
    actor: string,
    to: 'rejected' | 'cancelled',
    reason: string | undefined,
    event: string,
    onlyRequester?: string,
  ): Promise<PaymentRequest | undefined> {
    assertTransition(id, 'pending', to);
    const [decided] = await this.#db.query<Row>(DECIDE, [
      id,
      to,
      actor,
      reason ?? null,
      onlyRequester ?? null,
      event,
      reason ? JSON.stringify({ reason }) : null,
    ]);
    return decided ? this.#toRequest(decided) : undefined;
  }

  /**
   * executing → submitted | failed | unknown: the one call's result. If the request is no longer
   * executing (a lease ran out and another process called it unknown), the outcome is still
   * kept, as `outcome.late` with its own audit row: what the provider said is never dropped.
   */
  async finishExecution(
    id: number,
    to: 'submitted' | 'failed' | 'unknown',
    outcome: ProviderOutcome,
  ): Promise<PaymentRequest | undefined> {
    assertTransition(id, 'executing', to);
    const [finished] = await this.#db.query<Row>(FINISH_EXECUTION, [
      id,
      to,
      JSON.stringify(outcome),
    ]);
    if (finished) return this.#toRequest(finished);
    return this.#db.transaction(async (tx) => {
      const late = await tx.query<{ fingerprint: string; status: string }>(
        `update payment_requests
           set outcome = coalesce(outcome, '{}'::jsonb) || jsonb_build_object('late', $2::jsonb), updated_at = now()
         where id = $1 returning fingerprint, status`,
        [id, JSON.stringify({ ...outcome, result: to })],
      );
      const row = late[0];
      if (!row) return undefined;
      await tellSlack(tx, id, 'late_outcome');
      // The audit row last: the chain's head is locked till commit, by every audited change.
      await audit(tx, id, 'payops', 'late_outcome', row.status, row.status, row.fingerprint, {
        ...outcome,
        result: to,
      });
      return this.#load(tx, id);
    });
  }

  /** What a read, or a person (`resolvedBy`), learnt of an unknown outcome; never a new status. */
  async recordReconciliation(
    id: number,
    reconciliation: Reconciliation,
  ): Promise<PaymentRequest | undefined> {
    return this.#db.transaction(async (tx) => {
      // A person's word (`resolvedBy`) is final: a later automatic check does not replace it.
      const rows = await tx.query<{ fingerprint: string; status: string }>(
        `update payment_requests set reconciliation = $2, updated_at = now()
          where id = $1 and status = 'unknown'
            and (reconciliation is null or reconciliation->>'resolvedBy' is null)
          returning fingerprint, status`,
        [id, JSON.stringify(reconciliation)],
      );
      if (rows.length === 0) return undefined;
      const row = rows[0] as { fingerprint: string; status: string };
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
      await tellSlack(tx, id, learnt ? (resolvedBy ? 'resolved' : 'reconciled') : undefined);
      await audit(
        tx,
        id,
        resolvedBy ?? 'payops',
        resolvedBy ? 'resolved' : 'reconciled',
        row.status,
        row.status,
        row.fingerprint,
        { ...reconciliation },
      );
      return this.#load(tx, id);
    });
  }

  /** pending requests past their expiry → expired. */
  expireDue(now: Date): Promise<PaymentRequest[]> {
    return this.#sweep(
      `update payment_requests set status = 'expired', updated_at = now()
       where status = 'pending' and expires_at <= $1 returning id, fingerprint`,
      now.toISOString(),
      'pending',
      'expired',
    );
  }

  /**
   * The fence before the one call: records that it is being sent, only if the claim is still
   * `claimToken`'s, within the lease `leaseMs` (by the database's clock, the one that stamped
   * the claim and that `recoverStale` reads) and payments are not frozen. Whatever waited
   * between the claim and here, a process that lost its claim gets `refused` and sends nothing.
   */
  async markSending(
    id: number,
    claimToken: string,
    leaseMs: number,
  ): Promise<{ kind: 'send' } | { kind: 'refused'; reason: string }> {
    const [row] = await this.#db.query<{
      sent: boolean;
      frozen: boolean;
      freeze_reason: string | null;
    }>(
      `with sending as (
         update payment_requests set sent_at = now()
          where id = $1 and status = 'executing' and claim_token = $2 and sent_at is null
            and claimed_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000)
            and not (select frozen from freeze_state where id = 1)
         returning id
       )
       select exists (select 1 from sending) as sent, f.frozen, f.reason as freeze_reason
         from freeze_state f where f.id = 1`,
      [id, claimToken, leaseMs],
    );
    if (row?.sent) return { kind: 'send' };
    if (row?.frozen) {
      return {
        kind: 'refused',
        reason: `Payments were frozen (${row.freeze_reason ?? 'no reason given'}) before it was sent: nothing was sent. Make a new request after /pay unfreeze.`,
      };
    }
    return {
      kind: 'refused',
      reason:
        'payops lost its claim on it before sending (it waited longer than the execution lease): nothing was sent. Make a new request if it is still wanted.',
    };
  }

  /**
   * Requests left `executing` longer than the lease (by the database's clock, the one that
   * stamped the claim). One whose call was let out (`sent_at`), or claimed by a version of
   * payops without the fence, may or may not have reached the provider: it becomes `unknown`,
   * never executed again. One never let out cannot be sent any more (`markSending`): it failed,
   * nothing was sent.
   */
  async recoverStale(leaseMs: number): Promise<PaymentRequest[]> {
    const outlived = `status = 'executing' and claimed_at <= now() - make_interval(secs => $1::double precision / 1000)`;
    const unsent = await this.#sweep(
      `update payment_requests set status = 'failed',
         outcome = coalesce(outcome, '{}'::jsonb) || '{"message": "it was never sent: payops stopped or failed between the claim and the call. Nothing was sent; make a new request if it is still wanted."}'::jsonb,
         updated_at = now()
       where ${outlived} and claim_token is not null and sent_at is null
       returning id, fingerprint`,
      leaseMs,
      'executing',
      'failed',
    );
    const outcomeUnknown = await this.#sweep(
      `update payment_requests set status = 'unknown',
         outcome = coalesce(outcome, '{}'::jsonb) || '{"message": "its execution outlived the lease: payops stopped, or the call hung"}'::jsonb,
         updated_at = now()
       where ${outlived}
       returning id, fingerprint`,
      leaseMs,
      'executing',
      'unknown',
    );
    return [...unsent, ...outcomeUnknown];
  }

  /**
   * Unknown outcomes still unresolved — never checked, or not found / check failed at least
   * `recheckAfterMs` ago, and not settled by a person — created within the last `forMs`,
   * oldest check first.
   */
  async listUnresolved(recheckAfterMs: number, forMs: number): Promise<PaymentRequest[]> {
    const rows = await this.#db.query<Row>(
      `${SELECT_REQUEST}
       where r.status = 'unknown'
         and r.created_at > now() - make_interval(secs => $2::double precision / 1000)
         and (r.reconciliation is null
              or (r.reconciliation->>'result' in ('not_found', 'check_failed')
                  and r.reconciliation->>'resolvedBy' is null
                  and (r.reconciliation->>'checkedAt')::timestamptz
                      <= now() - make_interval(secs => $1::double precision / 1000)))
       order by r.reconciliation->>'checkedAt' nulls first
       limit 20`,
      [recheckAfterMs, forMs],
    );
    return rows.map((row) => this.#toRequest(row));
  }

  async #sweep(
    sql: string,
    parameter: string | number,
    from: RequestStatus,
    to: RequestStatus,
  ): Promise<PaymentRequest[]> {
    return this.#db.transaction(async (tx) => {
      const rows = await tx.query<{ id: unknown; fingerprint: string }>(sql, [parameter]);
      const swept: PaymentRequest[] = [];
      for (const row of rows) {
        const id = Number(row.id);
        await tellSlack(tx, id, to);
        await audit(tx, id, 'payops', to, from, to, row.fingerprint, undefined);
        swept.push((await this.#load(tx, id)) as PaymentRequest);
      }
      return swept;
    });
  }

  /**
   * Seals every stored payload that is plain or sealed with an older key with the current key,
   * a batch per transaction (replicas may keep running); resolves with how many it re-sealed.
   */
  async reencryptPayloads(batchSize = 500): Promise<number> {
    // A key id may hold `_`, which LIKE would read as any character.
    const current = `enc:v1:${this.#cipher.currentKeyId.replace(/[\\%_]/g, '\\$&')}:%`;
    let total = 0;
    for (;;) {
      const done = await this.#db.transaction(async (tx) => {
        const rows = await tx.query<{ id: unknown; body: string }>(
          `select id, body from payment_requests
            where body is not null and body not like $1
            order by id limit $2 for update skip locked`,
          [current, batchSize],
        );
        for (const row of rows) {
          await tx.query('update payment_requests set body = $2 where id = $1', [
            row.id,
            this.#cipher.seal(this.#cipher.open(row.body)),
          ]);
        }
        return rows.length;
      });
      total += done;
      if (done < batchSize) return total;
    }
  }

  async history(id: number): Promise<AuditEntry[]> {
    const rows = await this.#db.query<AuditRow>(
      `select ${AUDIT_COLUMNS} from audit_log where request_id = $1 order by id`,
      [id],
    );
    return rows.map(toAuditEntry);
  }

  /**
   * The whole audit log, oldest first, a page of at most `pageSize` entries at a time (keyset:
   * each page one bounded query, however long the log), ending with the newest.
   */
  async *auditLog(pageSize = 50_000): AsyncGenerator<AuditEntry[]> {
    let after = 0;
    for (;;) {
      const rows = await this.#db.query<AuditRow>(
        `select ${AUDIT_COLUMNS} from audit_log where id > $1 order by id limit $2`,
        [after, pageSize],
      );
      if (rows.length === 0) return;
      const page = rows.map(toAuditEntry);
      yield page;
      after = (page.at(-1) as AuditEntry).id;
      if (rows.length < pageSize) return;
    }
  }

  freezeState(): Promise<FreezeState> {
    return readFreeze(this.#db);
  }

  async setFreeze(
    frozen: boolean,
    actor: string,
    reason: string | undefined,
  ): Promise<FreezeState> {
    return this.#db.transaction(async (tx) => {
      await tx.query(
        'update freeze_state set frozen = $1, reason = $2, changed_by = $3, changed_at = now() where id = 1',
        [frozen, reason ?? null, actor],
      );
      // Every pending card shows the freeze while it lasts, and stops when it ends.
      await tx.query(enqueueCardUpdate("payment_requests where status = 'pending'"));
      await audit(
        tx,
        undefined,
        actor,
        frozen ? 'frozen' : 'unfrozen',
        undefined,
        undefined,
        undefined,
        reason ? { reason } : undefined,
      );
      return readFreeze(tx);
    });
  }

  async #load(db: Queryable, id: number): Promise<PaymentRequest | undefined> {
    const [row] = await db.query<Row>(`${SELECT_REQUEST} where r.id = $1`, [id]);
    return row ? this.#toRequest(row) : undefined;
  }

  #toRequest(row: Row): PaymentRequest {
    const approvals =
      typeof row.approval_list === 'string' ? JSON.parse(row.approval_list) : row.approval_list;
    return {
      id: Number(row.id),
      operationId: row.operation_id as WriteOperationId,
      path: row.path_params ?? {},
      body: row.body === null ? undefined : this.#cipher.open(row.body),
      fingerprint: row.fingerprint,
      holdKey: row.hold_key,
      requesterId: row.requester_id,
      status: row.status,
      requiredApprovals: row.required_approvals,
      approvals: (approvals as Array<{ userId: string; at: string; seal: string | null }>).map(
        (approval) => ({
          userId: approval.userId,
          at: iso(approval.at),
          seal: approval.seal ?? undefined,
        }),
      ),
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at),
      channelId: row.channel_id ?? undefined,
      messageTs: row.message_ts ?? undefined,
      decidedBy: row.decided_by ?? undefined,
      reason: row.reason ?? undefined,
      outcome: row.outcome ?? undefined,
      reconciliation: row.reconciliation ?? undefined,
      labels: row.labels ?? undefined,
      follow: toProviderFollow(row.follow_state),
      updatedAt: iso(row.updated_at),
    };
  }

  /**
   * The requests `requesterId` made to the payee `payeeTag` since `since` that may still pay or
   * did (pending, being sent, submitted, outcome unknown), bodies opened: what a policy window
   * counts. One range scan of the index of migration 0012.
   */
  async requestsToPayee(
    requesterId: string,
    payeeTag: string,
    since: Date,
  ): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>> {
    const rows = await this.#db.query<Pick<Row, 'id' | 'operation_id' | 'body' | 'created_at'>>(
      `select id, operation_id, body, created_at from payment_requests
        where requester_id = $1 and payee_tag = $2 and created_at >= $3
          and status in ('pending', 'executing', 'submitted', 'unknown')
        order by created_at`,
      [requesterId, payeeTag, since.toISOString()],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      operationId: row.operation_id as WriteOperationId,
      body: row.body === null ? undefined : this.#cipher.open(row.body),
      createdAt: iso(row.created_at),
    }));
  }

  // ——— a person's Home: their queue, their requests, the last decisions ———

  /**
   * Requests `approverId` may approve at `now` by the rules on the request (pending, not
   * expired, not theirs, not already approved by them), oldest first, with how many there are.
   */
  async pendingFor(
    approverId: string,
    now: Date,
    limit: number,
  ): Promise<{ requests: PaymentRequest[]; total: number }> {
    const rows = await this.#db.query<Row & { total: unknown }>(
      `select ${REQUEST_COLUMNS}, count(*) over () as total from payment_requests r
        where r.status = 'pending' and r.expires_at > $2 and r.requester_id <> $1
          and not exists (select 1 from approvals a where a.request_id = r.id and a.approver_id = $1)
        order by r.id limit $3`,
      [approverId, now.toISOString(), limit],
    );
    return {
      requests: rows.map((row) => this.#toRequest(row)),
      total: Number(rows[0]?.total ?? 0),
    };
  }

  /** `requesterId`'s latest requests, newest first, whatever their status. */
  async requestsOf(requesterId: string, limit: number): Promise<PaymentRequest[]> {
    const rows = await this.#db.query<Row>(
      `${SELECT_REQUEST} where r.requester_id = $1 order by r.id desc limit $2`,
      [requesterId, limit],
    );
    return rows.map((row) => this.#toRequest(row));
  }

  /**
   * The latest requests decided (approved and sent, rejected, cancelled, expired) that `userId`
   * requested, approved or decided, latest decision first.
   */
  async decisionsOf(userId: string, limit: number): Promise<PaymentRequest[]> {
    const rows = await this.#db.query<Row>(
      `${SELECT_REQUEST}
       where r.status not in ('pending', 'executing')
         and r.id in (select id from payment_requests where requester_id = $1
                      union select id from payment_requests where decided_by = $1
                      union select request_id from approvals where approver_id = $1)
       order by r.updated_at desc, r.id desc limit $2`,
      [userId, limit],
    );
    return rows.map((row) => this.#toRequest(row));
  }
}

interface Row {
  id: unknown;
  operation_id: string;
  path_params: Record<string, string>;
  body: string | null;
  fingerprint: string;
  hold_key: string;
  requester_id: string;
  status: RequestStatus;
  required_approvals: number;
  created_at: Date | string;
  expires_at: Date | string;
  updated_at: Date | string;
  channel_id: string | null;
  message_ts: string | null;
  decided_by: string | null;
  reason: string | null;
  outcome: ProviderOutcome | null;
  reconciliation: Reconciliation | null;
  labels: RequestLabels | null;
  approval_list: Array<{ userId: string; at: string; seal: string | null }> | string;
  follow_state?: FollowStateRow | string | null;
}

interface AuditRow {
  id: unknown;
  at: Date | string;
  request_id: unknown;
  actor: string;
  event: string;
  from_status: string | null;
  to_status: string | null;
  fingerprint: string | null;
  detail: Record<string, unknown> | null;
}

function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: iso(row.at),
    requestId: row.request_id === null ? undefined : Number(row.request_id),
    actor: row.actor,
    event: row.event,
    fromStatus: row.from_status ?? undefined,
    toStatus: row.to_status ?? undefined,
    fingerprint: row.fingerprint ?? undefined,
    detail: row.detail ?? undefined,
  };
}

async function audit(
  db: Queryable,
  requestId: number | undefined,
  actor: string,
  event: string,
  from: string | undefined,
  to: string | undefined,
  fingerprint: string | undefined,
  detail: Record<string, unknown> | undefined,
): Promise<void> {
  if (from && to && from !== to) {
    assertTransition(requestId, from as RequestStatus, to as RequestStatus);
  }
  await db.query(
    `${INSERT_AUDIT}
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      requestId ?? null,
      actor,
      event,
      from ?? null,
      to ?? null,
      fingerprint ?? null,
      detail ? JSON.stringify(detail) : null,
    ],
  );
}

/** The request's card redrawn, and with `event` its requester told in the thread. */
async function tellSlack(db: Queryable, id: number, event: string | undefined): Promise<void> {
  const request = '(select $1::bigint as id) changed';
  await db.query(enqueueCardUpdate(request), [id]);
  if (event !== undefined) await db.query(enqueueNotice(request, '$2::text'), [id, event]);
}

/**
 * Every status change is checked here before its SQL runs: one outside the state machine
 * aborts its transaction.
 */
function assertTransition(
  requestId: number | undefined,
  from: RequestStatus,
  to: RequestStatus,
): void {
  if (!canTransition(from, to)) {
    throw new Error(
      `request ${requestId}: ${from} → ${to} is not a transition of the state machine`,
    );
  }
}

interface HeldRow {
  held_by: { id: unknown; status: UnsettledTwin['status'] } | string | null;
}

function toTwin(row: HeldRow): UnsettledTwin | undefined {
  if (row.held_by === null) return undefined;
  const twin = typeof row.held_by === 'string' ? JSON.parse(row.held_by) : row.held_by;
  return { id: Number(twin.id), status: twin.status };
}

interface FreezeRow {
  freeze_frozen: boolean;
  freeze_reason: string | null;
  freeze_changed_by: string | null;
  freeze_changed_at: Date | string | null;
}

function toFreeze(row: FreezeRow): FreezeState {
  return {
    frozen: row.freeze_frozen,
    reason: row.freeze_reason ?? undefined,
    changedBy: row.freeze_changed_by ?? undefined,
    changedAt: row.freeze_changed_at ? iso(row.freeze_changed_at) : undefined,
  };
}

async function readFreeze(db: Queryable): Promise<FreezeState> {
  const [row] = await db.query<FreezeRow>(
    `select ${FREEZE_COLUMNS} from freeze_state f where f.id = 1`,
  );
  return row
    ? toFreeze(row)
    : { frozen: false, reason: undefined, changedBy: undefined, changedAt: undefined };
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}
