import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { parseApproveButton } from '../../interaction-ids.ts';
import { approvalAnswerText } from '../../text/approvals.ts';
import type { ApprovalDeps } from '../deps.ts';
import { answerClick, cardOf } from './click.ts';

/**
 * Approve on an approval card: the workflow decides at the moment of the click. An executed
 * request is told on its card and in the requester's thread, through the outbox; anything else
 * is told to the approver alone.
 */
export function approveCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    respond,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    await answerClick(deps, respond, async () => {
      const button = parseApproveButton(action.value);
      if (!button) return NOT_A_REQUEST_BUTTON;
      const { id, fingerprint } = button;
      const result = await deps.workflow.approve(id, body.user.id, {
        ...cardOf(body),
        fingerprint,
      });
      return result.kind === 'executed' ? undefined : approvalAnswerText(deps, id, result);
    });
  };
}
