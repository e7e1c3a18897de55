import type { ApprovalDeps } from '../deps.ts';
import { openAskForm } from '../modals.ts';
import { cardFormCallback } from './click.ts';

/** Ask a question on an approval card: a form asks what (src/slack/listeners/views/ask-question.ts). */
export function askCallback(deps: ApprovalDeps) {
  return cardFormCallback(deps, openAskForm);
}
