import type { ApprovalDeps } from '../deps.ts';
import { openAskForm } from '../modals.ts';
import { homeFormCallback } from './click.ts';

/** Ask a question on a Home tab: the same form as a card's, with what the Home showed. */
export function homeAskCallback(deps: ApprovalDeps) {
  return homeFormCallback(deps, openAskForm, 'question');
}
