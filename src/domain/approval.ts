import type { ApprovalChain } from './approval-chain.ts';
import type { SupportingDocument } from './document.ts';
import type { ProviderFollow } from './follow.ts';
import type { ReconciliationFinding } from './list-findings.ts';
import type { WriteOperationId } from './operations.ts';
import type { PayeeCheck } from './payee.ts';
import type { ProviderErrorFacts } from './provider-error.ts';

/**
 * A payment request and its life: one explicit state machine. A request is created pending,
 * collects approvals from people other than its requester, and is executed exactly once when
 * it has enough — or it is rejected, cancelled or expires first.
 */
export type RequestStatus =
  | 'pending'
  /** Claimed for its one call to the provider; nobody else may call. */
  | 'executing'
  /** The provider accepted it (2xx). Submitted, not settled. */
  | 'submitted'
  /** The provider refused it (4xx): not executed. */
  | 'failed'
  /** Timeout, dropped connection or 5xx: may or may not have been executed. Never retried. */
  | 'unknown'
  | 'rejected'
  | 'cancelled'
  | 'expired'
  /** Its requester edited and resubmitted it: a new request replaces it (src/domain/resubmit.ts). */
  | 'superseded';

export const TRANSITIONS: Readonly<Record<RequestStatus, readonly RequestStatus[]>> = {
  pending: ['executing', 'rejected', 'cancelled', 'expired', 'superseded'],
  executing: ['submitted', 'failed', 'unknown'],
  submitted: [],
  failed: [],
  unknown: [],
  rejected: [],
  cancelled: [],
  expired: [],
  superseded: [],
};

export function canTransition(from: RequestStatus, to: RequestStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** What is asked of the provider, exactly: the operation, its path and the body's bytes. */
export interface WriteIntent {
  operationId: WriteOperationId;
  path: Readonly<Record<string, string>>;
  /** Fields as the requester gave them, in the catalogue's order; all strings. */
  fields: Readonly<Record<string, string>>;
  /** Why the money moves (src/domain/purpose.ts), scrubbed: payops's own, never in the body. */
  purpose?: string | undefined;
  /** A supporting document's Slack file id (src/domain/document.ts), read before it is stored. */
  documentFileId?: string | undefined;
}

/** The exact JSON text that will be sent, or undefined for a write without a body. */
export function bodyText(intent: WriteIntent): string | undefined {
  return Object.keys(intent.fields).length === 0 ? undefined : JSON.stringify(intent.fields);
}

/**
 * Another request for the same write (same `holdKey`) or the same payment (same `paymentKey`)
 * that is being sent now, or whose outcome is unknown and not settled (`outcomeSettled`): while
 * one exists, the same write cannot be requested again and the approval that would execute a
 * pending twin is not counted, since the first may have been executed.
 */
export interface UnsettledTwin {
  id: number;
  status: 'executing' | 'unknown';
}

/**
 * An unknown outcome is settled once a read found it (`found`: it was executed) or an approver
 * who looked at the provider said what happened (`resolvedBy`). A read that found nothing does
 * not settle it: the spec promises no fresh lists, and a late record must not invite a second
 * payment. `UNSETTLED` in the request store says the same in SQL.
 */
export function outcomeSettled(reconciliation: Reconciliation | undefined): boolean {
  return reconciliation?.result === 'found' || reconciliation?.resolvedBy !== undefined;
}

export interface ProviderOutcome {
  status?: number | undefined;
  requestId?: string | undefined;
  /** The provider's id of what it created or changed, when found. */
  providerId?: string | undefined;
  /** The provider's own word for the record's status, e.g. `pending`. */
  providerStatus?: string | undefined;
  code?: string | undefined;
  message?: string | undefined;
}

export interface Reconciliation {
  checkedAt: string;
  /**
   * `found`: exactly one record shows the request's effect (so it was executed); `ambiguous`:
   * several could be it, a person must look; `not_found`: none seen yet. Until it is settled
   * (`outcomeSettled`), a new request for the same write is held.
   */
  result: 'found' | 'ambiguous' | 'not_found' | 'check_failed';
  /**
   * Set when an approver settled it by hand (`/pay resolve`) after looking at the provider:
   * `found` for "executed", `not_found` for "not executed". Rechecks never overwrite it.
   */
  resolvedBy?: string | undefined;
  providerId?: string | undefined;
  providerStatus?: string | undefined;
  /** What a check found; none when a person resolved it. */
  finding?: ReconciliationFinding | undefined;
  /** The note of the approver who resolved it (`resolvedBy`), as they wrote it. */
  detail?: string | undefined;
}

export interface PaymentRequest {
  /** The request's number, shown as `#12`. */
  id: number;
  operationId: WriteOperationId;
  path: Record<string, string>;
  /** Exact JSON text to send; undefined for a write without a body. */
  body: string | undefined;
  fingerprint: string;
  /** The canonical form's digest (`Signer.holdKey`): what the hold compares. */
  holdKey: string;
  /** The payment's digest (`Signer.paymentKey`), which the hold compares too; none if it pays none. */
  paymentKey?: string | undefined;
  requesterId: string;
  status: RequestStatus;
  requiredApprovals: number;
  /** `Signer.requestSeal` of it, made when it was stored. */
  seal?: string | undefined;
  approvals: Approval[];
  createdAt: string;
  expiresAt: string;
  /** Where its approval message is: a click counts only from there. */
  channelId: string | undefined;
  messageTs: string | undefined;
  decidedBy: string | undefined;
  reason: string | undefined;
  outcome: ProviderOutcome | undefined;
  /** When its one call was let out (by the database's clock); none before that. */
  sentAt?: string | undefined;
  reconciliation: Reconciliation | undefined;
  /** The supporting document read when it was made; sealed with the request, never sent. */
  document?: SupportingDocument | undefined;
  /** Names for the identifiers in the request, for people; never sent. */
  labels?: RequestLabels | undefined;
  /** Why the money moves, as stored (scrubbed); sealed with the request, never sent. */
  purpose?: string | undefined;
  /** The steps its policy rule named, in order; none: any `requiredApprovals` approvers. */
  chain?: ApprovalChain | undefined;
  /** Its record at the provider, followed after it was submitted (or found). */
  follow?: ProviderFollow | undefined;
  /** The last question an approver asked its requester (src/domain/resubmit.ts). */
  question?: Question | undefined;
  updatedAt: string;
}

/** An approver's question to the requester, scrubbed: the request stays pending. */
export interface Question {
  by: string;
  at: string;
  text: string;
}

/**
 * The request an edited one replaces, and each value that changed, shown as the card shows it
 * (banking numbers masked): stored with the new request's labels, so never whole.
 */
export interface Replaced {
  id: number;
  changes: Array<{ field: string; before?: string | undefined; after?: string | undefined }>;
}

export interface Approval {
  userId: string;
  at: string;
  /** `Signer.approvalSeal` of what they approved. */
  seal?: string | undefined;
  /** The step of its request's chain it filled (0 is the first). */
  step?: number | undefined;
}

/** One thing payops checked of a write by reading (`src/app/preflight.ts`). */
export type CheckName = 'wallet' | 'balance' | 'recipient' | 'corridor' | 'rail';

export interface PreflightCheck {
  name: CheckName;
  outcome: 'passed' | 'failed' | 'unchecked';
  /** What was found, or why it could not be checked (src/slack/text/preflight.ts words it). */
  finding: PreflightFinding;
  /** Failed beyond doubt (the provider said 404): the request is refused, nothing stored. */
  certain?: boolean | undefined;
}

/**
 * What a check found, as the data its sentence needs: ids, statuses and currencies as the
 * provider wrote them, amounts as the provider or the request wrote them. `what` is the write
 * in a sentence: `payout`, `transfer` or `request`.
 */
export type PreflightFinding =
  // The wallet and its balance.
  | { code: 'wallet_exists'; walletId: string }
  | { code: 'no_wallet'; walletId: string }
  | { code: 'available'; available: string; currency: string }
  | { code: 'insufficient'; available: string; currency: string; requested: string }
  | { code: 'balance_shape_unknown' }
  | { code: 'no_currency'; what: string }
  | { code: 'currency_case'; held: string; currency: string; what: string }
  | { code: 'other_currencies'; held: HeldAmount[]; currency: string; what: string }
  /** The balance read right before sending got no answer within its time. */
  | { code: 'balance_timed_out' }
  // The recipient.
  | { code: 'recipient_exists'; recipientId: string }
  | { code: 'recipient_active'; recipientId: string; status: string }
  | { code: 'recipient_inactive'; recipientId: string; status: string }
  | { code: 'recipient_status_unknown'; recipientId: string; status: string }
  | { code: 'no_recipient'; recipientId: string }
  // The corridor and its rail.
  | { code: 'corridor_exists'; corridorId: string }
  | { code: 'no_corridor'; corridorId: string }
  | { code: 'corridor_not_seen'; corridorId: string }
  | { code: 'corridor_list_shape_unknown' }
  | { code: 'rail_listed'; corridorId: string; rail: string }
  | { code: 'rail_case'; corridorId: string; listed: string; rail: string }
  | { code: 'rail_not_listed'; corridorId: string; rails: string[]; rail: string }
  /** A read that failed: the provider's error, or none when payops failed to ask. */
  | {
      code: 'read_failed';
      read: 'balance' | 'recipient' | 'corridors';
      error?: ProviderErrorFacts;
    };

/** An amount a wallet holds, as the provider wrote it. */
export interface HeldAmount {
  amount: string;
  currency: string;
}

/** A window made the request need more approvals than its own amount would: the card says so. */
export interface WindowRaise {
  /** The rule's window as written, e.g. `24h`. */
  window: string;
  /** This request's amount and the earlier ones', in units of `currencies`. */
  total: string;
  currencies: string[];
  /** The rule's min_amount, which the total reached. */
  threshold: string;
  /** How many earlier requests were counted. */
  requests: number;
}

/** A requester limit a request went past (src/domain/policy.ts), which raised its approvals. */
export interface LimitRaise {
  /** The limit's window as written, e.g. `24h`. */
  window: string;
  /** This request's amount and the requester's earlier ones', in units of `currencies`. */
  total: string;
  currencies: string[];
  /** What the requester may request within the window. */
  limit: string;
  /** How many earlier requests were counted. */
  requests: number;
}

export interface RequestLabels {
  recipientName?: string | undefined;
  walletLabel?: string | undefined;
  /** Who it pays, as approvers tell payees apart. */
  payee?: PayeeCheck | undefined;
  /** What payops checked by reading before asking an approver. */
  checks?: PreflightCheck[] | undefined;
  /** Earlier requests to the same payee raised the approvals needed (a policy window). */
  windowRaised?: WindowRaise | undefined;
  /** The requester's requests in a limit's window went past it, which raised the approvals. */
  limitRaised?: LimitRaise | undefined;
  /** The request it replaces, edited and resubmitted, and what changed. */
  replaces?: Replaced | undefined;
  /** The edited request that replaced it, once superseded. */
  supersededBy?: number | undefined;
}

export function fieldsOf(request: Pick<PaymentRequest, 'body'>): Record<string, string> {
  return request.body === undefined ? {} : (JSON.parse(request.body) as Record<string, string>);
}
