import type {
  PaymentRequest,
  ProviderOutcome,
  Reconciliation,
  UnsettledTwin,
} from '../domain/approval.ts';
import type { Database } from './database.ts';
import type { PayloadCipher } from './payload-cipher.ts';
import {
  type ApprovalChecks,
  type CountApprovalResult,
  countApproval,
} from './requests/approve.ts';
import { type AuditEntry, auditLog, requestHistory } from './requests/audit.ts';
import { createRequest, type NewRequest } from './requests/create-request.ts';
import { decide } from './requests/decide.ts';
import { finishExecution } from './requests/finish-execution.ts';
import { type FreezeState, loadWithFreeze, readFreeze, setFreeze } from './requests/freeze.ts';
import { decisionsOf, listPending, pendingFor, requestsOf } from './requests/lists.ts';
import { reencryptPayloads } from './requests/maintenance.ts';
import { type FenceResult, markSending } from './requests/mark-sending.ts';
import { payeeHistory, requestsOfRequester, requestsToPayee } from './requests/payees.ts';
import { askQuestion } from './requests/questions.ts';
import {
  listUnresolved,
  providerIdsTaken,
  recordReconciliation,
} from './requests/reconciliation.ts';
import { loadRequest, type RequestDb } from './requests/rows.ts';
import { expireDue, recoverStale } from './requests/sweeps.ts';
import { unsettledTwin } from './requests/unsettled-twin.ts';

export type { ApprovalChecks, ApprovalRule, CountApprovalResult } from './requests/approve.ts';
export type { AuditEntry } from './requests/audit.ts';
export { type NewRequest, WindowChangedError } from './requests/create-request.ts';
export type { FreezeState } from './requests/freeze.ts';
export type { FenceResult, FenceStop } from './requests/mark-sending.ts';
export { NotSupersededError } from './requests/questions.ts';

/**
 * Payment requests in SQL, one module of `requests/` per statement. Every change of status is
 * one conditional UPDATE (`… where status = 'pending'`) under a row lock, written with its audit
 * row in the same transaction: double clicks, redeliveries, two approvers at once and several
 * replicas on one database can never claim a request twice.
 */
export class RequestStore {
  readonly #store: RequestDb;

  /** `cipher` seals every body stored and opens it when read. */
  constructor(db: Database, cipher: PayloadCipher) {
    this.#store = { db, cipher };
  }

  create(request: NewRequest): Promise<PaymentRequest> {
    return createRequest(this.#store, { request });
  }

  get(id: number): Promise<PaymentRequest | undefined> {
    return loadRequest(this.#store.db, { cipher: this.#store.cipher, id });
  }

  /** A request and the freeze as they are now, in one round trip: what its message shows. */
  async getWithFreeze(
    id: number,
  ): Promise<{ request: PaymentRequest; freeze: FreezeState } | undefined> {
    const read = await loadWithFreeze(this.#store, { id });
    return read && { request: read.request, freeze: read.freeze };
  }

  payeeHistory(
    payeeTag: string,
    nameTag: string | undefined,
  ): Promise<{ paidBefore: boolean; nameElsewhere: string[] }> {
    return payeeHistory(this.#store.db, { payeeTag, nameTag });
  }

  requestsToPayee(
    requesterId: string,
    payeeTag: string,
    since: Date,
  ): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>> {
    return requestsToPayee(this.#store, { requesterId, payeeTag, since });
  }

  requestsOfRequester(
    requesterId: string,
    since: Date,
  ): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>> {
    return requestsOfRequester(this.#store, { requesterId, since });
  }

  reencryptPayloads(batchSize = 500): Promise<number> {
    return reencryptPayloads(this.#store, { batchSize });
  }

  unsettledTwin(holdKey: string, paymentKey?: string): Promise<UnsettledTwin | undefined> {
    return unsettledTwin(this.#store.db, { holdKey, paymentKey });
  }

  listPending(limit: number): Promise<{ requests: PaymentRequest[]; total: number }> {
    return listPending(this.#store, { limit });
  }

  approve(
    id: number,
    approverId: string,
    claimedBy: string,
    checks: ApprovalChecks,
  ): Promise<CountApprovalResult> {
    return countApproval(this.#store, { id, approverId, claimedBy, checks });
  }

  /** pending → rejected, with the approver and the reason. */
  reject(id: number, actor: string, reason: string): Promise<PaymentRequest | undefined> {
    return decide(this.#store, { id, actor, to: 'rejected', reason });
  }

  /** A question to its requester, recorded on the pending request and told in its thread. */
  ask(id: number, actor: string, question: string): Promise<PaymentRequest | undefined> {
    return askQuestion(this.#store, { id, actor, question });
  }

  /** pending → cancelled, by its requester only. */
  cancel(id: number, actor: string): Promise<PaymentRequest | undefined> {
    return decide(this.#store, { id, actor, to: 'cancelled', onlyRequester: actor });
  }

  finishExecution(
    id: number,
    to: 'submitted' | 'failed' | 'unknown',
    outcome: ProviderOutcome,
  ): Promise<PaymentRequest | undefined> {
    return finishExecution(this.#store, { id, to, outcome });
  }

  recordReconciliation(
    id: number,
    reconciliation: Reconciliation,
    checkedFrom?: { reconciliation: Reconciliation | undefined },
  ): Promise<PaymentRequest | undefined> {
    return recordReconciliation(this.#store, { id, reconciliation, checkedFrom });
  }

  expireDue(now: Date): Promise<PaymentRequest[]> {
    return expireDue(this.#store, { now });
  }

  markSending(id: number, claimToken: string, leaseMs: number): Promise<FenceResult> {
    return markSending(this.#store.db, { id, claimToken, leaseMs });
  }

  recoverStale(leaseMs: number): Promise<PaymentRequest[]> {
    return recoverStale(this.#store, { leaseMs });
  }

  listUnresolved(recheckAfterMs: number, forMs: number): Promise<PaymentRequest[]> {
    return listUnresolved(this.#store, { recheckAfterMs, forMs });
  }

  /** Which of `ids` are records of requests other than `requestId`: never its own. */
  providerIdsTaken(requestId: number, ids: readonly string[]): Promise<Set<string>> {
    return providerIdsTaken(this.#store, { requestId, ids });
  }

  history(id: number): Promise<AuditEntry[]> {
    return requestHistory(this.#store.db, { requestId: id });
  }

  auditLog(pageSize = 50_000): AsyncGenerator<AuditEntry[]> {
    return auditLog(this.#store.db, { pageSize });
  }

  freezeState(): Promise<FreezeState> {
    return readFreeze(this.#store.db);
  }

  setFreeze(frozen: boolean, actor: string, reason: string | undefined): Promise<FreezeState> {
    return setFreeze(this.#store, { frozen, actor, reason });
  }

  pendingFor(
    approverId: string,
    now: Date,
    limit: number,
  ): Promise<{ requests: PaymentRequest[]; total: number }> {
    return pendingFor(this.#store, { approverId, now, limit });
  }

  requestsOf(requesterId: string, limit: number): Promise<PaymentRequest[]> {
    return requestsOf(this.#store, { requesterId, limit });
  }

  decisionsOf(userId: string, limit: number): Promise<PaymentRequest[]> {
    return decisionsOf(this.#store, { userId, limit });
  }
}
