import type { PaymentRequest } from '../domain/approval.ts';

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

export function homeClickRefusal(request: PaymentRequest, shown: HomeShown): string | undefined {
  if (request.fingerprint !== shown.fingerprint) {
    return `Request #${request.id} is not the one your Home showed: nothing was counted. Open your Home again.`;
  }
  if (request.approvals.length !== shown.approvals) {
    return `Request #${request.id} changed since your Home showed it (it now has ${request.approvals.length} of ${request.requiredApprovals} approvals): nothing was counted. Look at it again before deciding.`;
  }
  return undefined;
}
