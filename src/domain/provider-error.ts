/**
 * What a failed call to the Payments API showed, as data: classified by src/payments/errors.ts,
 * stored in findings (a pre-flight check, a reconciliation) and worded on the Slack side
 * (src/slack/text/provider-errors.ts). Here so that the domain's findings can hold it.
 */
export type PaymentsErrorCode =
  | 'payments.missing_api_key'
  | 'payments.invalid_api_key'
  | 'payments.insufficient_scope'
  | 'payments.scope_review_required'
  | 'payments.rejected'
  | 'payments.server_error'
  | 'payments.timeout'
  | 'payments.network'
  | 'payments.malformed_response'
  | 'payments.reply_too_large'
  | 'payments.outcome_unknown';

export type UnknownOutcomeReason =
  | 'timeout'
  | 'connection_lost'
  | 'server_error'
  | 'unreadable_success_reply'
  | 'unexpected_reply'
  | 'unclear_refusal';

/** The facts of one failure, scrubbed: no echoed secret, no account number. */
export interface ProviderErrorFacts {
  code: PaymentsErrorCode;
  status?: number;
  providerCode?: string;
  providerMessage?: string;
  requestId?: string;
  /** Why the outcome of a write is unknown (`payments.outcome_unknown`). */
  reason?: UnknownOutcomeReason;
  /** The bytes payops reads of one reply (`payments.reply_too_large`). */
  limitBytes?: number;
}
