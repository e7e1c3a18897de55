import type { OperationId } from '../domain/operations.ts';
import type {
  PaymentsErrorCode,
  ProviderErrorFacts,
  UnknownOutcomeReason,
} from '../domain/provider-error.ts';
import { scrub } from '../domain/scrub.ts';

export type { PaymentsErrorCode, ProviderErrorFacts, UnknownOutcomeReason };

/**
 * For a write: `not_executed` when the provider refused it or it never left this process,
 * `unknown` when it may have been executed. Reads are always `not_executed`.
 */
export type WriteOutcome = 'not_executed' | 'unknown';

export interface PaymentsErrorDetails {
  operationId: OperationId;
  status?: number | undefined;
  providerCode?: string | undefined;
  providerMessage?: string | undefined;
  requestId?: string | undefined;
  /** The provider's `Retry-After`, when it sent one. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * Every failure of a call to the Payments API, classified once at the boundary.
 * Each carries what a user needs (status, provider code and message, request id)
 * and, for writes, what is known about whether the provider executed it.
 */
export abstract class PaymentsApiError extends Error {
  abstract readonly code: PaymentsErrorCode;
  readonly outcome: WriteOutcome = 'not_executed';
  readonly operationId: OperationId;
  readonly status: number | undefined;
  readonly providerCode: string | undefined;
  readonly providerMessage: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(summary: string, details: PaymentsErrorDetails) {
    super(summary, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.operationId = details.operationId;
    this.status = details.status;
    this.providerCode = details.providerCode;
    this.providerMessage = details.providerMessage;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** What the failure showed, as data a finding can store and the Slack side words. */
  facts(): ProviderErrorFacts {
    return {
      code: this.code,
      ...(this.status !== undefined && { status: this.status }),
      // A provider may quote an account number, or echo the key, in its code or message.
      ...(this.providerCode && { providerCode: scrub(this.providerCode) }),
      ...(this.providerMessage && { providerMessage: scrub(this.providerMessage) }),
      ...(this.requestId && { requestId: this.requestId }),
    };
  }

  /** Fields for a structured log line; never includes request or response bodies. */
  toLog(): Record<string, unknown> {
    return {
      code: this.code,
      operationId: this.operationId,
      status: this.status,
      providerCode: this.providerCode,
      // A provider may quote an account number, or echo the key, in its message.
      providerMessage: this.providerMessage && scrub(this.providerMessage),
      requestId: this.requestId,
      outcome: this.outcome,
    };
  }
}

/** 401: the request reached the provider without a key. */
export class MissingApiKeyError extends PaymentsApiError {
  readonly code = 'payments.missing_api_key';
}

/** 401: unknown or revoked key, or an ineligible account (the provider does not tell which). */
export class InvalidApiKeyError extends PaymentsApiError {
  readonly code = 'payments.invalid_api_key';
}

/** 403 INSUFFICIENT_API_KEY_SCOPE. */
export class InsufficientScopeError extends PaymentsApiError {
  readonly code = 'payments.insufficient_scope';
}

/** 403 API_KEY_SCOPE_REVIEW_REQUIRED: a legacy key whose classification is unresolved. */
export class ScopeReviewRequiredError extends PaymentsApiError {
  readonly code = 'payments.scope_review_required';
}

/** A 4xx on a read, or one on a write that refuses it before execution (see the client). */
export class RequestRejectedError extends PaymentsApiError {
  readonly code = 'payments.rejected';
}

/** 5xx on a read. (On a write a 5xx is an OutcomeUnknownError.) */
export class ServerError extends PaymentsApiError {
  readonly code = 'payments.server_error';
}

/** A read that got no answer in time. */
export class TimeoutError extends PaymentsApiError {
  readonly code = 'payments.timeout';
}

/** A read whose connection failed, or a write that never left this process. */
export class NetworkError extends PaymentsApiError {
  readonly code = 'payments.network';
}

/** A read whose successful reply was not JSON. */
export class MalformedResponseError extends PaymentsApiError {
  readonly code = 'payments.malformed_response';
}

/**
 * A read whose successful reply went past the bytes payops reads of one reply: it stopped
 * reading there, so the reply is unread, not empty.
 */
export class ReplyTooLargeError extends PaymentsApiError {
  readonly code = 'payments.reply_too_large';
  readonly limitBytes: number;

  constructor(summary: string, details: PaymentsErrorDetails & { limitBytes: number }) {
    super(summary, details);
    this.limitBytes = details.limitBytes;
  }

  override facts(): ProviderErrorFacts {
    return { ...super.facts(), limitBytes: this.limitBytes };
  }
}

/**
 * A write that may or may not have been executed: it timed out, lost its connection after
 * it was sent, got a 5xx, a redirect or an unclear 4xx, or got a success whose body could not
 * be read. Never retry it:
 * read the matching list to learn what happened first (spec part 4, rules 2 and 3).
 */
export class OutcomeUnknownError extends PaymentsApiError {
  readonly code = 'payments.outcome_unknown';
  override readonly outcome = 'unknown';
  readonly reason: UnknownOutcomeReason;

  constructor(reason: UnknownOutcomeReason, details: PaymentsErrorDetails) {
    super(`outcome of ${details.operationId} unknown: ${reason}`, details);
    this.reason = reason;
  }

  override facts(): ProviderErrorFacts {
    return { ...super.facts(), reason: this.reason };
  }

  override toLog(): Record<string, unknown> {
    return { ...super.toLog(), reason: this.reason };
  }
}
