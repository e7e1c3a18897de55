import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { requestIdOf } from '../../interaction-ids.ts';
import type { ApprovalDeps } from '../deps.ts';
import { openRejectForm } from '../modals.ts';
import { answerClick, cardOf } from './click.ts';

/** Reject on an approval card: a form asks why (src/slack/listeners/views/reject-reason.ts). */
export function rejectCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    await answerClick(deps, respond, async () => {
      const id = requestIdOf(action.value);
      if (id === undefined) return NOT_A_REQUEST_BUTTON;
      await openRejectForm(deps, client, body, id, cardOf(body));
      return undefined;
    });
  };
}
