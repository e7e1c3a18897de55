import type { ApprovalDeps } from '../deps.ts';
import { openRejectForm } from '../modals.ts';
import { homeFormCallback } from './click.ts';

/** Reject on a Home tab: the same form as a card's, with what the Home showed. */
export function homeRejectCallback(deps: ApprovalDeps) {
  return homeFormCallback(deps, openRejectForm, 'reject');
}
