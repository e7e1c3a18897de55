import type { PaymentRequest } from '../domain/approval.ts';
import type { Refusal } from '../domain/refusals.ts';

/**
 * A decision clicked on a person's Home tab. A Home is no approval message: what it showed of
 * the request travels with the click, and the click counts only if the request is still what
 * was shown — the same payload, with the same approvals — so a Home drawn before a change
 * cannot approve what the change made.
 */
export interface HomeShown {
  fingerprint: string;
  /** How many approvals the Home showed: the confirm dialog's "sends it at once" depends on it. */
  approvals: number;
}

export function homeClickRefusal(request: PaymentRequest, shown: HomeShown): Refusal | undefined {
  if (request.fingerprint !== shown.fingerprint) return { code: 'home_differs', id: request.id };
  if (request.approvals.length !== shown.approvals) {
    return {
      code: 'home_changed',
      id: request.id,
      approvals: request.approvals.length,
      required: request.requiredApprovals,
    };
  }
  return undefined;
}
