/**
 * Every action_id and callback_id payops puts on a button or a modal, in one place: the
 * builders use them, the listeners register them, the manifest test checks them.
 */
export const ACTION = {
  approve: 'payops.approve',
  reject: 'payops.reject',
  cancel: 'payops.cancel',
  /** Approve and Reject on a Home tab: their value names the request and what the Home showed. */
  homeApprove: 'payops.home_approve',
  homeReject: 'payops.home_reject',
  /** An approver's question to the requester instead of a decision; its form asks what. */
  ask: 'payops.ask',
  homeAsk: 'payops.home_ask',
  /** The requester's edit of a request asked about: the request form, filled in as it was. */
  resubmit: 'payops.resubmit',
} as const;

export const VIEW = {
  /** The modal a requester fills in for a write, when the command had no fields. */
  request: 'payops.request',
  /** The modal asking a rejecting approver for a reason. */
  rejectReason: 'payops.reject_reason',
  /** The modal asking an approver's question. */
  askQuestion: 'payops.ask_question',
} as const;

/** The request a card or confirmation button acts on: its value is the request's id. */
export function requestIdOf(value: string | undefined): number | undefined {
  return value && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * A card's Approve button names the request and the fingerprint of what the card shows
 * (`12:3f9a…`), so an approval counts only for the version its approver saw.
 */
export function approveButtonValue(request: { id: number; fingerprint: string }): string {
  return `${request.id}:${request.fingerprint}`;
}

/**
 * An Approve button's request and fingerprint; none in a value made by hand, which therefore
 * counts for nothing.
 */
export function parseApproveButton(
  value: string | undefined,
): { id: number; fingerprint: string | undefined } | undefined {
  const [idText, fingerprint, ...rest] = (value ?? '').split(':');
  const id = requestIdOf(idText);
  if (id === undefined || rest.length > 0) return undefined;
  return { id, fingerprint: fingerprint || undefined };
}
