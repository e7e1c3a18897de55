import type { ApprovalDeps } from '../deps.ts';
import { openRejectForm } from '../modals.ts';
import { cardFormCallback } from './click.ts';

/** Reject on an approval card: a form asks why (src/slack/listeners/views/reject-reason.ts). */
export function rejectCallback(deps: ApprovalDeps) {
  return cardFormCallback(deps, openRejectForm);
}
