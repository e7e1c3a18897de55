import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { DOCUMENT_FIELD } from '../../../domain/document.ts';
import { OPERATIONS } from '../../../domain/operations.ts';
import { PURPOSE_FIELD, takesPurpose } from '../../../domain/purpose.ts';
import { validateWriteFields } from '../../../domain/write-commands.ts';
import { answerPrivately } from '../../answer-privately.ts';
import { renderRequestNotStored } from '../../blocks/messages.ts';
import { buildNoticeModal, readModalValues } from '../../blocks/request-modal.ts';
import { parseRequestForm } from '../../private-metadata.ts';
import { fieldErrorText, formUnreadableText } from '../../text/commands.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';
import { requestWrite, writeRules } from '../write-request.ts';

/**
 * The request form, submitted: its mistakes are shown under its fields; a valid write is stored
 * as a request, and a refusal told where the command was typed.
 */
export function requestCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    view,
    body,
    client,
  }: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const form = parseRequestForm(view.private_metadata);
    if (!form) {
      return ack({
        response_action: 'update',
        view: buildNoticeModal(formUnreadableText(deps.command)),
      });
    }
    const validated = validateWriteFields(
      form.operationId,
      form.path,
      readModalValues(view.state),
      writeRules(deps),
    );
    if ('errors' in validated) {
      const errors: Record<string, string> = {};
      const { bodyFields } = OPERATIONS[form.operationId];
      // The form's inputs: a block per body field, then a money-moving write's purpose and document.
      const inputs = takesPurpose(form.operationId)
        ? [...bodyFields, PURPOSE_FIELD, DOCUMENT_FIELD]
        : bodyFields;
      for (const error of validated.errors) {
        const field = error.field && inputs.includes(error.field) ? error.field : inputs[0];
        const text = fieldErrorText(deps.command, error);
        if (field) errors[field] = errors[field] ? `${errors[field]} ${text}` : text;
      }
      return ack({ response_action: 'errors', errors });
    }
    await ack();
    const { channelId } = form;
    const answerTo = channelId ? { channelId, userId: body.user.id } : undefined;
    const answer = await guarded(
      deps.logger,
      () =>
        requestWrite(deps, validated.intent, body.user.id, channelId, answerTo, form.supersedes),
      renderRequestNotStored,
    );
    if (answer && channelId) {
      await answerPrivately({ client, channelId, userId: body.user.id }, answer, deps.logger);
    }
  };
}
