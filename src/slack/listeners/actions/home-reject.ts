import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { parseHomeButton } from '../../blocks/home.ts';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import type { ApprovalDeps } from '../deps.ts';
import { answerInModal, openRejectForm } from '../modals.ts';

/** Reject on a Home tab: the same form as a card's, with what the Home showed. */
export function homeRejectCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    client,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    const button = parseHomeButton(action.value);
    if (!button) {
      await answerInModal(deps, client, body.trigger_id, async () => NOT_A_REQUEST_BUTTON);
      return;
    }
    await openRejectForm(deps, client, body, button.id, { home: button.shown }).catch((error) =>
      deps.logger.error({ err: error, requestId: button.id }, 'the reject form failed to open'),
    );
  };
}
