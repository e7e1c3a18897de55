import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PaymentRequest } from '../../../../src/domain/approval.ts';
import { rejectReasonCallback } from '../../../../src/slack/listeners/views/reject-reason.ts';
import { formatRejectForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, formSubmission } from '../../../helpers/listeners.ts';
import { CARD, workflowOnFakes } from '../../../helpers/workflow.ts';

type RejectReasonArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

/** `userId` submitting the reject form of `metadata` with `reason`; resolves once it is answered. */
function submit(
  deps: ReturnType<typeof approvalDeps>,
  userId: string,
  metadata: string,
  reason: string | undefined,
) {
  const bolt = fakeBolt();
  const values = { reason: { reason: { type: 'plain_text_input', value: reason } } };
  const args = {
    ...bolt,
    ...formSubmission(userId, metadata, values),
  } as unknown as RejectReasonArgs;
  return { bolt, done: rejectReasonCallback(deps)(args) };
}

/** The reject form of `request`, clicked on its card. */
function cardForm(request: PaymentRequest): string {
  return formatRejectForm({ id: request.id, origin: CARD });
}

/** The store's reject held until `release` is called: a rejection slower than Slack waits. */
function slowReject(store: ReturnType<typeof workflowOnFakes>['store']) {
  let release = () => {};
  const reject = store.reject.bind(store);
  store.reject = async (...args) => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return reject(...args);
  };
  return () => release();
}

describe('rejectReasonCallback', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with the reason and closes the form with a plain ack, telling nothing more', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const { bolt, done } = submit(
      approvalDeps(workflow),
      'U0BOB',
      cardForm(request),
      'Wrong payee',
    );
    await done;
    expect(bolt.said).toEqual(['ack']);
    expect(bolt.acks).toEqual([undefined]);
    expect(store.requests.get(request.id)).toMatchObject({
      status: 'rejected',
      decidedBy: 'U0BOB',
      reason: 'Wrong payee',
    });
  });

  it('shows under the reason that a form with forged metadata is for no known request, and changes nothing', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    for (const metadata of ['', '{"id":"x"}', '{"id":1,"home":{"fingerprint":3}}']) {
      const { bolt, done } = submit(approvalDeps(workflow), 'U0BOB', metadata, 'Wrong payee');
      await done;
      expect(bolt.acks).toEqual([
        { response_action: 'errors', errors: { reason: 'This form is not for a known request.' } },
      ]);
    }
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });

  it('asks for a reason when none is given, and one within its length when too long', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const deps = approvalDeps(workflow);
    const empty = submit(deps, 'U0BOB', cardForm(request), '   ');
    await empty.done;
    expect(empty.bolt.acks).toEqual([
      { response_action: 'errors', errors: { reason: 'Say why, so the requester can fix it.' } },
    ]);
    const long = submit(deps, 'U0BOB', cardForm(request), 'x'.repeat(501));
    await long.done;
    expect(long.bolt.acks).toEqual([
      {
        response_action: 'errors',
        errors: {
          reason: 'The reason is 501 characters long; at most 500. Shorten it and try again.',
        },
      },
    ]);
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });

  it('shows in the form why nothing changed: a request that does not exist, or one already decided', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const deps = approvalDeps(workflow);
    const missing = formatRejectForm({ id: 99, origin: CARD });
    const unknown = submit(deps, 'U0BOB', missing, 'Wrong payee');
    await unknown.done;
    expect(unknown.bolt.acks).toEqual([
      { response_action: 'errors', errors: { reason: 'Request #99 does not exist.' } },
    ]);
    await store.cancel(request.id, 'U0ALICE');
    const late = submit(deps, 'U0BOB', cardForm(request), 'Wrong payee');
    await late.done;
    expect(late.bolt.acks).toEqual([
      {
        response_action: 'errors',
        errors: { reason: `Request #${request.id} is already cancelled.` },
      },
    ]);
    expect(store.requests.get(request.id)?.reason).toBeUndefined();
  });

  it('refuses, in the form, someone who is not an approver', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const { bolt, done } = submit(approvalDeps(workflow), 'U0DAVE', cardForm(request), 'No');
    await done;
    const [ack] = bolt.acks as Array<{ errors: { reason: string } }>;
    expect(ack?.errors.reason).toContain('you are not an approver, so nothing was done');
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });

  it('shows in the form that the rejection could not be recorded when the store fails, and logs it', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    store.reject = async () => {
      throw new Error('the database is gone');
    };
    const deps = approvalDeps(workflow);
    const { bolt, done } = submit(deps, 'U0BOB', cardForm(request), 'Wrong payee');
    await done;
    const [ack] = bolt.acks as Array<{ response_action: string; errors: { reason: string } }>;
    expect(ack?.response_action).toBe('errors');
    const reference =
      /^payops could not record the rejection just now \(reference (\w{8})\); nothing changed\. Try again\.$/.exec(
        ack?.errors.reason ?? '',
      )?.[1];
    expect(reference).toBeDefined();
    // The reference the approver reads is the one an administrator finds in the log.
    expect(deps.lines.join('')).toContain(`"reference":"${reference}"`);
  });

  it('closes the form while Slack still waits when the rejection is slow, then tells the approver alone in the card’s channel', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const release = slowReject(store);
    const { bolt, done } = submit(approvalDeps(workflow), 'U0BOB', cardForm(request), 'Wrong');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(bolt.said).toEqual(['ack']);
    release();
    await done;
    expect(bolt.said).toEqual(['ack', 'chat.postEphemeral']);
    expect(bolt.posts[0]?.args).toMatchObject({
      channel: CARD.channelId,
      user: 'U0BOB',
      text: `Request #${request.id} is rejected; nothing was sent.`,
    });
    expect(store.requests.get(request.id)?.status).toBe('rejected');
  });

  it('tells a slow rejection from a Home tab, which has no channel, in a direct message', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const release = slowReject(store);
    const home = { home: { fingerprint: request.fingerprint, approvals: 0 } };
    const metadata = formatRejectForm({ id: request.id, origin: home });
    const { bolt, done } = submit(approvalDeps(workflow), 'U0BOB', metadata, 'Wrong');
    await vi.advanceTimersByTimeAsync(2_000);
    release();
    await done;
    expect(bolt.said).toEqual(['ack', 'chat.postMessage']);
    expect(bolt.posts[0]?.args).toMatchObject({
      channel: 'U0BOB',
      text: `Request #${request.id} is rejected; nothing was sent.`,
    });
  });
});
