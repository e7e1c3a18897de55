import type { App } from '@slack/bolt';
import { VIEW } from '../../interaction-ids.ts';
import type { ApprovalDeps } from '../deps.ts';
import { askQuestionCallback } from './ask-question.ts';
import { rejectReasonCallback } from './reject-reason.ts';
import { requestCallback } from './request.ts';

/** The approval flow's forms: a write's request form, a rejection's reason, a question. */
export function register(app: App, deps: ApprovalDeps): void {
  app.view(VIEW.rejectReason, rejectReasonCallback(deps));
  app.view(VIEW.request, requestCallback(deps));
  app.view(VIEW.askQuestion, askQuestionCallback(deps));
}
