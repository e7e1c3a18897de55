import type { PreflightCheck } from '../domain/approval.ts';
import type { ProviderErrorFacts } from '../domain/provider-error.ts';
import type { FenceStop } from './request-store-port.ts';

/**
 * What payops itself says of a write's outcome: why it stopped a claimed write before its one
 * call, a note on one it let out, a failure of its own, a provider error the provider gave no
 * words for. Stored in the request's outcome and its audit row as it was told (the audit chain
 * keeps what people read), so the workflow names the case and the Slack side gives the words
 * (src/slack/text/outcomes.ts), with the command as configured.
 */
export type OutcomeNote =
  /** The stored request no longer matches its seal: someone wrote payops's database. */
  | { code: 'seal_broken' }
  /** The payload or its approvals no longer match what was approved. */
  | { code: 'approval_mismatch' }
  /** The balance read right before sending is less than the write's amount. */
  | { code: 'balance_too_low'; balance: PreflightCheck }
  /** The store failed at the fence, so nothing was let out. */
  | { code: 'store_unreachable' }
  | FenceStop
  /** Let out, though the balance read right before sending could not be compared. */
  | { code: 'balance_unchecked'; balance: PreflightCheck }
  /** payops itself failed after the claim: it may have been sent. */
  | { code: 'send_failed' }
  | { code: 'provider_error'; error: ProviderErrorFacts };

/** The words of an outcome note, as stored and shown. */
export type OutcomeWords = (note: OutcomeNote) => string;
