import { describe, expect, it } from 'vitest';
import { homeButtonValue } from '../../../../src/slack/blocks/home.ts';
import { VIEW } from '../../../../src/slack/interaction-ids.ts';
import { homeRejectCallback } from '../../../../src/slack/listeners/actions/home-reject.ts';
import { parseRejectForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, clickOnHome, modalText, referenceIn } from '../../../helpers/listeners.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

describe('homeRejectCallback', () => {
  it('acks first, then opens the reject form carrying the request and what the Home showed, and rejects nothing yet', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeRejectCallback(approvalDeps(workflow)),
      'U0BOB',
      homeButtonValue(request),
    );
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(bolt.views[0]?.args).toMatchObject({ trigger_id: 'T0TRIGGER' });
    const form = bolt.views[1]?.args.view as { callback_id: string; private_metadata: string };
    expect(form.callback_id).toBe(VIEW.rejectReason);
    expect(parseRejectForm(form.private_metadata)).toEqual({
      id: request.id,
      origin: { home: { fingerprint: request.fingerprint, approvals: 0 } },
    });
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });

  it('tells the person in a modal that a button value payops did not draw names no request', async () => {
    const { workflow } = workflowOnFakes();
    const bolt = await clickOnHome(
      homeRejectCallback(approvalDeps(workflow)),
      'U0BOB',
      '{"id":"1"}',
    );
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(modalText(bolt)).toBe('That button does not name a request.');
  });

  it('shows someone who is not an approver a refusal instead of the form', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeRejectCallback(approvalDeps(workflow)),
      'U0DAVE',
      homeButtonValue(request),
    );
    const view = bolt.views[1]?.args.view as { callback_id?: string };
    expect(view.callback_id).toBeUndefined();
    expect(modalText(bolt)).toContain('you are not an approver, so nothing was done');
  });

  it('shows a reference in the modal, the one logged, when checking the approver fails inside payops', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    workflow.canApprove = async () => {
      throw new Error('the directory is gone');
    };
    const deps = approvalDeps(workflow);
    const bolt = await clickOnHome(homeRejectCallback(deps), 'U0BOB', homeButtonValue(request));
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(modalText(bolt)).toMatch(/^Something failed inside payops \(reference \w{8}\)/);
    expect(referenceIn(modalText(bolt), deps.lines).logged).toBe(true);
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });

  it('logs the failure, and rejects nothing, when Slack refuses to open the form (an expired trigger)', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const deps = approvalDeps(workflow);
    const bolt = fakeBolt();
    bolt.client.views.open = async () => {
      throw new Error('expired_trigger_id');
    };
    await clickOnHome(homeRejectCallback(deps), 'U0BOB', homeButtonValue(request), bolt);
    expect(bolt.said).toEqual(['ack']);
    expect(deps.lines.join('')).toContain('the reject form failed to open');
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });
});
