import type { BlockAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ClickOrigin } from '../../app/approvals.ts';
import { interactionFailedText } from '../blocks/messages.ts';
import {
  buildAskQuestionModal,
  buildNoticeModal,
  buildRejectReasonModal,
} from '../blocks/request-modal.ts';
import { formatRejectForm } from '../private-metadata.ts';
import { deniedText, modalFailedText, ONE_MOMENT } from '../text/approvals.ts';
import type { ApprovalDeps } from './deps.ts';
import { guarded } from './guarded.ts';

/**
 * Opens a "one moment" modal at once (a trigger_id lives about 3 s), then replaces it with
 * `fill`'s view, so a slow permission check (Slack's directory) or a slow provider cannot expire
 * the trigger. A failure to fill it is logged with a reference the modal shows; a failure to
 * open it (an expired trigger) is thrown, as nothing can be shown there.
 */
export async function openModalThenFill(
  deps: Pick<ApprovalDeps, 'logger'>,
  client: WebClient,
  triggerId: string,
  fill: () => Promise<ModalView>,
): Promise<void> {
  const opened = await client.views.open({
    trigger_id: triggerId,
    view: buildNoticeModal(ONE_MOMENT),
  });
  const view = await guarded(deps.logger, fill, (reference) =>
    buildNoticeModal(modalFailedText(reference)),
  );
  await client.views.update({ view_id: opened.view?.id as string, view });
}

/**
 * A click whose answer is a modal (a Home tab's: it has no response_url): "one moment" at once,
 * then `answer`'s text. A failure inside payops is logged with a reference the modal shows.
 */
export async function answerInModal(
  deps: Pick<ApprovalDeps, 'logger'>,
  client: WebClient,
  triggerId: string,
  answer: () => Promise<string>,
): Promise<void> {
  await openModalThenFill(deps, client, triggerId, async () =>
    buildNoticeModal(await guarded(deps.logger, answer, interactionFailedText)),
  ).catch((error) => deps.logger.warn({ err: error }, 'could not show the answer to a Home click'));
}

/**
 * Opens the form asking a rejecting approver why, once their permission is checked. The click's
 * origin travels with the form; the workflow checks it when the reason comes.
 */
export function openRejectForm(
  deps: ApprovalDeps,
  client: WebClient,
  body: BlockAction,
  id: number,
  origin: ClickOrigin,
): Promise<void> {
  return openApproverForm(deps, client, body, { id, origin }, buildRejectReasonModal);
}

/** The form asking an approver's question, opened as the reject form is, with its origin. */
export function openAskForm(
  deps: ApprovalDeps,
  client: WebClient,
  body: BlockAction,
  id: number,
  origin: ClickOrigin,
): Promise<void> {
  return openApproverForm(deps, client, body, { id, origin }, buildAskQuestionModal);
}

function openApproverForm(
  deps: ApprovalDeps,
  client: WebClient,
  body: BlockAction,
  form: { id: number; origin: ClickOrigin },
  build: (id: number) => ModalView,
): Promise<void> {
  return openModalThenFill(deps, client, body.trigger_id, async () => {
    const decision = await deps.workflow.canApprove(body.user.id);
    if (!decision.allowed) {
      return buildNoticeModal(deniedText({ kind: 'not_allowed', decision }, deps.accessAdmin));
    }
    const view = build(form.id);
    view.private_metadata = formatRejectForm(form);
    return view;
  });
}
