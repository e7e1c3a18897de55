import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { cancelCallback } from '../../../../src/slack/listeners/actions/cancel.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, buttonClick } from '../../../helpers/listeners.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

type CancelArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

describe('cancelCallback', () => {
  it('acks first, cancels the requester’s pending request and tells them alone, nothing sent', async () => {
    const { workflow, store, payments, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = fakeBolt();
    const args = {
      ...bolt,
      ...buttonClick('U0ALICE', String(request.id)),
    } as unknown as CancelArgs;
    await cancelCallback(approvalDeps(workflow))(args);
    expect(bolt.said).toEqual(['ack', 'respond']);
    expect(bolt.responses[0]?.text).toBe(`Request #${request.id} is cancelled; nothing was sent.`);
    expect(store.requests.get(request.id)?.status).toBe('cancelled');
    expect(payments.count('createPayout')).toBe(0);
  });

  it('tells the person a button value naming no request does not name one', async () => {
    const { workflow } = workflowOnFakes();
    const bolt = fakeBolt();
    const args = { ...bolt, ...buttonClick('U0ALICE', '12:x') } as unknown as CancelArgs;
    await cancelCallback(approvalDeps(workflow))(args);
    expect(bolt.responses[0]?.text).toBe('That button does not name a request.');
  });
});
