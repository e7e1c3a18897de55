import { describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../../../src/domain/approval.ts';
import { homeButtonValue } from '../../../../src/slack/blocks/home.ts';
import { homeApproveCallback } from '../../../../src/slack/listeners/actions/home-approve.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, clickOnHome, modalText, referenceIn } from '../../../helpers/listeners.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

/** What a Home showed of `request`, with `change` made to it (a Home drawn earlier, a forgery). */
function shown(request: PaymentRequest, change: Partial<PaymentRequest> = {}): string {
  return homeButtonValue({ ...request, ...change });
}

describe('homeApproveCallback', () => {
  it('acks first, opens "one moment" on the click’s trigger before the provider’s write, then tells the approver in it that their approval completed the request', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = fakeBolt();
    payments.answer('createPayout', () => {
      bolt.said.push('createPayout');
      return { id: 'po_1', status: 'pending' };
    });
    await clickOnHome(homeApproveCallback(approvalDeps(workflow)), 'U0BOB', shown(request), bolt);
    expect(bolt.said).toEqual(['ack', 'views.open', 'createPayout', 'views.update']);
    expect(bolt.views[0]?.args).toMatchObject({ trigger_id: 'T0TRIGGER' });
    expect(bolt.views[1]?.args).toMatchObject({ view_id: 'V0MODAL' });
    expect(modalText(bolt)).toMatch(
      new RegExp(`^Your approval of #${request.id} completed it: .+\\. Its approval message`),
    );
    expect(bolt.responses).toEqual([]);
    expect(payments.count('createPayout')).toBe(1);
  });

  it('tells the requester in the modal that their own request is not theirs to approve, and sends nothing', async () => {
    const { workflow, store, payments, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeApproveCallback(approvalDeps(workflow)),
      'U0ALICE',
      shown(request),
    );
    expect(modalText(bolt)).toBe(
      'You requested this, so you cannot approve it: a second person must.',
    );
    expect(store.requests.get(request.id)?.status).toBe('pending');
    expect(payments.count('createPayout')).toBe(0);
  });

  it('counts nothing for a request other than the one the Home showed (its fingerprint differs)', async () => {
    const { workflow, store, payments, requested } = workflowOnFakes();
    const request = await requested();
    const value = shown(request, { fingerprint: 'f'.repeat(64) });
    const bolt = await clickOnHome(homeApproveCallback(approvalDeps(workflow)), 'U0BOB', value);
    expect(modalText(bolt)).toBe(
      `Request #${request.id} is not the one your Home showed: nothing was counted. Open your Home again.`,
    );
    expect(store.requests.get(request.id)?.approvals).toEqual([]);
    expect(payments.count('createPayout')).toBe(0);
  });

  it('says a request number that does not exist does not', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeApproveCallback(approvalDeps(workflow)),
      'U0BOB',
      shown(request, { id: 99 }),
    );
    expect(modalText(bolt)).toBe('Request #99 does not exist.');
  });

  it('tells the approver a button value payops did not draw names no request, and approves nothing', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeApproveCallback(approvalDeps(workflow)),
      'U0BOB',
      String(request.id),
    );
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(modalText(bolt)).toBe('That button does not name a request.');
    expect(store.requests.get(request.id)?.approvals).toEqual([]);
  });

  it('refuses someone who is not an approver, in the modal', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = await clickOnHome(
      homeApproveCallback(approvalDeps(workflow)),
      'U0DAVE',
      shown(request),
    );
    expect(modalText(bolt)).toContain('you are not an approver, so nothing was done');
    expect(payments.count('createPayout')).toBe(0);
  });

  it('shows a reference in the modal, also in the log, when the workflow fails inside payops', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    store.approve = async () => {
      throw new Error('the database is gone');
    };
    const deps = approvalDeps(workflow);
    const bolt = await clickOnHome(homeApproveCallback(deps), 'U0BOB', shown(request));
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(modalText(bolt)).toMatch(/^Something failed inside payops \(reference \w+\)/);
    expect(referenceIn(modalText(bolt), deps.lines).logged).toBe(true);
  });
});
