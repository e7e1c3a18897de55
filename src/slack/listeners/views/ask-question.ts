import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { answerPrivately } from '../../answer-privately.ts';
import { ASK_FORM, askAnswerText, askFailedText } from '../../text/questions.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';
import { readApproverForm } from './approver-form.ts';

/**
 * An approver's question, submitted: checked like a rejection's reason, then asked. Asking
 * sends nothing, so the form closes at once and the outcome comes as a private message (in the
 * card's channel, or from a Home tab as a direct message).
 */
export function askQuestionCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    view,
    body,
    client,
  }: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const read = readApproverForm(view, 'question', {
      unknownRequest: ASK_FORM.unknownRequest,
      empty: ASK_FORM.noQuestion,
    });
    if ('error' in read) {
      return ack({ response_action: 'errors', errors: { question: read.error } });
    }
    const { form, text: question } = read;
    await ack();
    const text = await guarded(
      deps.logger,
      async () =>
        askAnswerText(
          deps,
          form.id,
          await deps.workflow.ask(form.id, body.user.id, question, form.origin),
        ),
      askFailedText,
      { requestId: form.id, userId: body.user.id },
    );
    const channelId = 'channelId' in form.origin ? form.origin.channelId : undefined;
    await answerPrivately({ client, channelId, userId: body.user.id }, { text }, deps.logger);
  };
}
