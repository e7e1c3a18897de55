import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { checkFreeText } from '../../../domain/free-text.ts';
import { answerPrivately } from '../../answer-privately.ts';
import { parseRejectForm } from '../../private-metadata.ts';
import { freeTextProblemText } from '../../text/commands.ts';
import { ASK_FORM, askAnswerText, askFailedText } from '../../text/questions.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';

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
    const errors = (question: string) => ack({ response_action: 'errors', errors: { question } });
    const form = parseRejectForm(view.private_metadata);
    const question = checkFreeText(view.state.values.question?.question?.value ?? '');
    if (!form) return errors(ASK_FORM.unknownRequest);
    if ('error' in question) return errors(freeTextProblemText('question', question.error));
    if (!question.text) return errors(ASK_FORM.noQuestion);
    await ack();
    const text = await guarded(
      deps.logger,
      async () =>
        askAnswerText(
          deps,
          form.id,
          await deps.workflow.ask(form.id, body.user.id, question.text, form.origin),
        ),
      askFailedText,
      { requestId: form.id, userId: body.user.id },
    );
    const channelId = 'channelId' in form.origin ? form.origin.channelId : undefined;
    await answerPrivately({ client, channelId, userId: body.user.id }, { text }, deps.logger);
  };
}
