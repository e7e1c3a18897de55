import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { askQuestionCallback } from '../../../../src/slack/listeners/views/ask-question.ts';
import { formatRejectForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, formSubmission } from '../../../helpers/listeners.ts';
import { CARD, workflowOnFakes } from '../../../helpers/workflow.ts';

type AskArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

async function submit(userId: string, question: string) {
  const { workflow, store, requested } = workflowOnFakes();
  const request = await requested();
  const bolt = fakeBolt();
  const values = { question: { question: { type: 'plain_text_input', value: question } } };
  const metadata = formatRejectForm({ id: request.id, origin: CARD });
  const args = { ...bolt, ...formSubmission(userId, metadata, values) } as unknown as AskArgs;
  await askQuestionCallback(approvalDeps(workflow))(args);
  return { bolt, stored: store.requests.get(request.id), id: request.id };
}

describe('askQuestionCallback', () => {
  it('asks, closes the form, and tells the approver privately in the card’s channel', async () => {
    const { bolt, stored, id } = await submit('U0BOB', '  Which invoice?  ');
    expect(bolt.acks).toEqual([undefined]);
    expect(stored?.question).toMatchObject({ by: 'U0BOB', text: 'Which invoice?' });
    expect(bolt.posts[0]?.args).toMatchObject({ channel: CARD.channelId, user: 'U0BOB' });
    expect(String(bolt.posts[0]?.args.text)).toContain(`thread of #${id}`);
  });

  it('keeps the form open on an empty question, asking nothing', async () => {
    const { bolt, stored } = await submit('U0BOB', '   ');
    expect(bolt.acks).toEqual([
      { response_action: 'errors', errors: { question: 'Write the question for the requester.' } },
    ]);
    expect(stored?.question).toBeUndefined();
  });

  it('tells the requester they cannot ask about their own request', async () => {
    const { bolt, stored } = await submit('U0ALICE', 'Why?');
    expect(String(bolt.posts[0]?.args.text)).toContain('another approver asks the questions');
    expect(stored?.question).toBeUndefined();
  });
});
