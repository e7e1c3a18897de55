import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { answerPrivately } from '../../answer-privately.ts';
import {
  REJECT_FORM,
  rejectedText,
  rejectionFailedText,
  rejectionRefusalText,
} from '../../text/approvals.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';
import { readApproverForm } from './approver-form.ts';

/**
 * How long a form's submission waits for its outcome to answer inside the ack (Slack gives
 * 3 s, the hand-over from the ingress and the network take some): past it the form closes.
 */
const FORM_ANSWER_WITHIN_MS = 2_000;

/** A rejection's outcome: why nothing changed, if it did not. */
interface RejectionAnswer {
  refusal?: string | undefined;
}

/** The reason for a rejection, submitted: the workflow rejects, or says why not in the form. */
export function rejectReasonCallback(deps: ApprovalDeps) {
  return async ({
    ack,
    view,
    body,
    client,
  }: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const errors = (reason: string) => ack({ response_action: 'errors', errors: { reason } });
    const read = readApproverForm(view, 'reason', {
      unknownRequest: REJECT_FORM.unknownRequest,
      empty: REJECT_FORM.noReason,
    });
    if ('error' in read) return errors(read.error);
    const { form, text: reason } = read;
    const decided = guarded(
      deps.logger,
      async (): Promise<RejectionAnswer> => ({
        refusal: rejectionRefusalText(
          deps,
          form.id,
          await deps.workflow.reject(form.id, body.user.id, reason, form.origin),
        ),
      }),
      (reference): RejectionAnswer => ({ refusal: rejectionFailedText(reference) }),
      { requestId: form.id, userId: body.user.id },
    );
    // A refusal is best shown in the form, but only while Slack still waits for the answer.
    let answerInTime: NodeJS.Timeout | undefined;
    const early = await Promise.race([
      decided,
      new Promise<undefined>((resolve) => {
        answerInTime = setTimeout(() => resolve(undefined), FORM_ANSWER_WITHIN_MS);
      }),
    ]);
    clearTimeout(answerInTime);
    if (early?.refusal !== undefined) return errors(early.refusal);
    await ack();
    // Past the deadline the form is closed; its outcome comes as a message instead: in the
    // channel of the Reject button (the approval message's), or from a Home tab, which has
    // none, as a direct message from payops.
    const answer = early ?? (await decided);
    const channelId = 'channelId' in form.origin ? form.origin.channelId : undefined;
    if (early === undefined && ('home' in form.origin || channelId)) {
      const text = answer.refusal ?? rejectedText(form.id);
      await answerPrivately({ client, channelId, userId: body.user.id }, { text }, deps.logger);
    }
  };
}
