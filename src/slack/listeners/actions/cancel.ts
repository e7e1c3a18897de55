import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { requestIdOf } from '../../interaction-ids.ts';
import { cancelAnswerText } from '../../text/approvals.ts';
import type { ApprovalDeps } from '../deps.ts';
import { answerClick } from './click.ts';

/** Cancel on a requester's confirmation: only they may, and only while it is pending. */
export function cancelCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    respond,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    await answerClick(deps, respond, async () => {
      const id = requestIdOf(action.value);
      if (id === undefined) return NOT_A_REQUEST_BUTTON;
      const result = await deps.workflow.cancel(id, body.user.id);
      return cancelAnswerText(deps, id, result);
    });
  };
}
