import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { parseHomeButton } from '../../blocks/home.ts';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { homeApprovalAnswerText } from '../../text/approvals.ts';
import type { ApprovalDeps } from '../deps.ts';
import { answerInModal } from '../modals.ts';

/** Approve on a Home tab, which has no response_url: what the click did is told in a modal. */
export function homeApproveCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    client,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    await answerInModal(deps, client, body.trigger_id, async () => {
      const button = parseHomeButton(action.value);
      if (!button) return NOT_A_REQUEST_BUTTON;
      const result = await deps.workflow.approve(button.id, body.user.id, { home: button.shown });
      return homeApprovalAnswerText(deps, button.id, result);
    });
  };
}
