import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { formValuesOf } from '../../../domain/resubmit.ts';
import { NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { buildNoticeModal } from '../../blocks/request-modal.ts';
import { requestIdOf } from '../../interaction-ids.ts';
import { resubmitRefusalText } from '../../text/questions.ts';
import type { ApprovalDeps } from '../deps.ts';
import { openModalThenFill } from '../modals.ts';
import { requestForm } from '../write-request.ts';

/**
 * Edit and resubmit, under an approver's question: to its requester alone (checked now), the
 * request form filled in as the request was; its submission replaces the request.
 */
export function resubmitCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    body,
    action,
    client,
  }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>): Promise<void> => {
    await ack();
    const id = requestIdOf(action.value);
    await openModalThenFill(deps, client, body.trigger_id, async () => {
      if (id === undefined) return buildNoticeModal(NOT_A_REQUEST_BUTTON);
      const found = await deps.workflow.resubmittable(id, body.user.id);
      if (found.kind !== 'resubmittable') {
        return buildNoticeModal(
          found.kind === 'done' ? NOT_A_REQUEST_BUTTON : resubmitRefusalText(deps, id, found),
        );
      }
      const old = found.request;
      return requestForm(deps, {
        operationId: old.operationId,
        path: old.path,
        values: formValuesOf(old),
        channelId: body.channel?.id,
        supersedes: id,
      });
    }).catch((error) =>
      deps.logger.error({ err: error, requestId: id }, 'the resubmit form failed to open'),
    );
  };
}
