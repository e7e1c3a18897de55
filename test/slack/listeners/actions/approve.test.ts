import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { approveButtonValue } from '../../../../src/slack/interaction-ids.ts';
import { approveCallback } from '../../../../src/slack/listeners/actions/approve.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, buttonClick } from '../../../helpers/listeners.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

type ApproveArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

/** Approve on a card: acked first, then the workflow's answer to the approver alone. */
async function click(deps: ReturnType<typeof approvalDeps>, userId: string, value: string) {
  const bolt = fakeBolt();
  const args = { ...bolt, ...buttonClick(userId, value) } as unknown as ApproveArgs;
  await approveCallback(deps)(args);
  return bolt;
}

describe('approveCallback', () => {
  it('acks first, and tells the approver alone why their own request is not theirs to approve', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await click(approvalDeps(workflow), 'U0ALICE', approveButtonValue(request));
    expect(bolt.said).toEqual(['ack', 'respond']);
    expect(bolt.responses).toEqual([
      expect.objectContaining({ response_type: 'ephemeral', replace_original: false }),
    ]);
    expect(bolt.responses[0]?.text).toBe(
      'You requested this, so you cannot approve it: a second person must.',
    );
  });

  it('answers nothing itself when the approval executes the request: its card tells', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await click(approvalDeps(workflow), 'U0BOB', approveButtonValue(request));
    expect(bolt.said).toEqual(['ack']);
    expect(payments.count('createPayout')).toBe(1);
  });

  it('tells the approver a button value naming no request does not name one', async () => {
    const { workflow } = workflowOnFakes();
    const bolt = await click(approvalDeps(workflow), 'U0BOB', 'twelve');
    expect(bolt.said).toEqual(['ack', 'respond']);
    expect(bolt.responses[0]?.text).toBe('That button does not name a request.');
  });

  it('gives the approver a reference, also in the log, when the workflow fails inside payops', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    store.approve = async () => {
      throw new Error('the database is gone');
    };
    const deps = approvalDeps(workflow);
    const bolt = await click(deps, 'U0BOB', approveButtonValue(request));
    expect(bolt.said).toEqual(['ack', 'respond']);
    const reference = bolt.responses[0]?.text?.match(/reference (\w+)/)?.[1];
    expect(reference).toBeDefined();
    expect(deps.lines.join('')).toContain(`"reference":"${reference}"`);
  });
});
