import type {
  PaymentRequest,
  ProviderOutcome,
  Reconciliation,
  UnsettledTwin,
} from '../domain/approval.ts';
import type {
  ApprovalChecks,
  CountApprovalResult,
  FenceResult,
  FreezeState,
  NewRequest,
} from '../store/request-store.ts';

/**
 * Payment requests as the use cases see them; the store keeps them (src/store/request-store.ts).
 * Each change of status is conditional on the status it leaves and writes its audit row and its
 * Slack messages (the outbox) with it, so of two clicks, replicas or sweeps only one makes it.
 */

export type {
  ApprovalChecks,
  ApprovalRule,
  CountApprovalResult,
  FenceResult,
  FenceStop,
  FreezeState,
  NewRequest,
} from '../store/request-store.ts';

/** A request by its number, and which provider records are other requests'. */
export interface RequestLookup {
  get(id: number): Promise<PaymentRequest | undefined>;
  /** Which of `ids` are records of requests other than `requestId`: never its own. */
  providerIdsTaken(requestId: number, ids: readonly string[]): Promise<Set<string>>;
}

/** What a request's payee was paid before, for the approver's warnings. */
export interface PayeeHistoryPort {
  unsettledTwin(holdKey: string, paymentKey?: string): Promise<UnsettledTwin | undefined>;
  payeeHistory(
    payeeTag: string,
    nameTag: string | undefined,
  ): Promise<{ paidBefore: boolean; nameElsewhere: string[] }>;
  requestsToPayee(
    requesterId: string,
    payeeTag: string,
    since: Date,
  ): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>>;
  /** The requester's requests since `since` to any payee, as a requester limit counts them. */
  requestsOfRequester(
    requesterId: string,
    since: Date,
  ): Promise<Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>>;
}

/** The approval workflow's store: a request from creation to its one call and its outcome. */
export interface RequestStorePort extends RequestLookup, PayeeHistoryPort {
  create(request: NewRequest): Promise<PaymentRequest>;
  /**
   * Counts one approval; the one completing the required count (payments not frozen) moves the
   * request to `executing` and alone gets its claim token.
   */
  approve(
    id: number,
    approverId: string,
    claimedBy: string,
    checks: ApprovalChecks,
  ): Promise<CountApprovalResult>;
  /** pending → rejected; undefined when it was not pending. */
  reject(id: number, actor: string, reason: string): Promise<PaymentRequest | undefined>;
  /** A question to its requester; the request stays pending. Undefined when it was not pending. */
  ask(id: number, actor: string, question: string): Promise<PaymentRequest | undefined>;
  /** pending → cancelled, by its requester only; undefined otherwise. */
  cancel(id: number, actor: string): Promise<PaymentRequest | undefined>;
  /**
   * The claim holder's last word before its one call: sent only if it still holds the claim
   * (`claimToken`, within `leaseMs`), it was not sent yet and payments are not frozen.
   */
  markSending(id: number, claimToken: string, leaseMs: number): Promise<FenceResult>;
  /** executing → what the call's answer says. */
  finishExecution(
    id: number,
    to: 'submitted' | 'failed' | 'unknown',
    outcome: ProviderOutcome,
  ): Promise<PaymentRequest | undefined>;
  /** What a read of the provider found of an unknown outcome (only if unchanged since `checkedFrom`). */
  recordReconciliation(
    id: number,
    reconciliation: Reconciliation,
    checkedFrom?: { reconciliation: Reconciliation | undefined },
  ): Promise<PaymentRequest | undefined>;
  /** Pending requests past their expiry → expired. */
  expireDue(now: Date): Promise<PaymentRequest[]>;
  /** Executions whose claim outlived `leaseMs` → unknown (never sent again). */
  recoverStale(leaseMs: number): Promise<PaymentRequest[]>;
  /** Unknown outcomes to check again: last checked `recheckAfterMs` ago, for up to `forMs`. */
  listUnresolved(recheckAfterMs: number, forMs: number): Promise<PaymentRequest[]>;
  freezeState(): Promise<FreezeState>;
  setFreeze(frozen: boolean, actor: string, reason: string | undefined): Promise<FreezeState>;
}
