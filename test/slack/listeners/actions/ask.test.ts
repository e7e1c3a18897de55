import { describe, expect, it } from 'vitest';
import { homeButtonValue } from '../../../../src/slack/blocks/home.ts';
import { VIEW } from '../../../../src/slack/interaction-ids.ts';
import { askCallback } from '../../../../src/slack/listeners/actions/ask.ts';
import { homeAskCallback } from '../../../../src/slack/listeners/actions/home-ask.ts';
import { parseRejectForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import {
  approvalDeps,
  type ButtonArgs,
  buttonClick,
  clickOnHome,
} from '../../../helpers/listeners.ts';
import { CARD, workflowOnFakes } from '../../../helpers/workflow.ts';

/** The form a click drew, once "one moment" was replaced. */
function formOf(bolt: ReturnType<typeof fakeBolt>) {
  return bolt.views[1]?.args.view as { callback_id?: string; private_metadata?: string };
}

describe('askCallback', () => {
  it('acks first, then opens the question form carrying the request and its card; nothing asked yet', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = fakeBolt();
    const args = { ...bolt, ...buttonClick('U0BOB', String(request.id)) } as unknown as ButtonArgs;
    await askCallback(approvalDeps(workflow))(args);
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(formOf(bolt).callback_id).toBe(VIEW.askQuestion);
    expect(parseRejectForm(formOf(bolt).private_metadata ?? '')).toEqual({
      id: request.id,
      origin: CARD,
    });
    expect(store.requests.get(request.id)?.question).toBeUndefined();
  });

  it('shows someone who is not an approver a refusal instead of the form', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = fakeBolt();
    const args = { ...bolt, ...buttonClick('U0DAVE', String(request.id)) } as unknown as ButtonArgs;
    await askCallback(approvalDeps(workflow))(args);
    expect(formOf(bolt).callback_id).toBeUndefined();
  });
});

describe('homeAskCallback', () => {
  it('opens the question form carrying what the Home showed', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeAskCallback(approvalDeps(workflow)),
      'U0BOB',
      homeButtonValue(request),
    );
    expect(formOf(bolt).callback_id).toBe(VIEW.askQuestion);
    expect(parseRejectForm(formOf(bolt).private_metadata ?? '')).toEqual({
      id: request.id,
      origin: { home: { fingerprint: request.fingerprint, approvals: 0 } },
    });
  });
});
