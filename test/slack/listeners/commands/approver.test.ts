import { describe, expect, it } from 'vitest';
import { answered, commandOnFakes, referenceIn } from '../../../helpers/listeners.ts';
import { CARD } from '../../../helpers/workflow.ts';

/** The approvers' commands, typed by U0CAROL (an approver and a reader, not a requester). */
describe('payCommand: approver commands', () => {
  it('freezes and unfreezes payments with the reason given, and says what the kill switch does', async () => {
    const { run, store } = commandOnFakes();
    const frozen = await run('U0CAROL', 'freeze fraud drill');
    expect(frozen.said).toEqual(['ack', 'respond']);
    expect(frozen.responses[0]?.text).toBe(
      'Payments are frozen (fraud drill): no write will be sent to the provider (reads go on). Pending requests stay pending; an approval that would execute is refused until `/payments unfreeze`.',
    );
    expect(await store.freezeState()).toMatchObject({
      frozen: true,
      reason: 'fraud drill',
      changedBy: 'U0CAROL',
    });
    const unfrozen = await run('U0CAROL', 'unfreeze');
    expect(unfrozen.responses[0]?.text).toBe(
      'Payments are unfrozen. Pending requests can be approved again.',
    );
    expect((await store.freezeState()).frozen).toBe(false);
  });

  it('refuses a reader the kill switch, naming the approvers, and leaves payments as they were', async () => {
    const { run, store } = commandOnFakes();
    const bolt = await run('U0ERIN', 'freeze');
    expect(answered(bolt)).toContain('Sorry, you are not an approver, so nothing was done.');
    expect((await store.freezeState()).frozen).toBe(false);
  });

  it('lists the pending requests, and shows one with its history', async () => {
    const { run, requested, lists } = commandOnFakes();
    const request = await requested();
    lists.record(request.id, 'U0ALICE', 'created', 'pending');
    expect(answered(await run('U0CAROL', 'requests'))).toContain(`#${request.id}`);
    const detail = answered(await run('U0CAROL', `request #${request.id}`));
    expect(detail).toContain(`#${request.id}`);
    expect(detail).toContain('created');
  });

  it('says which request to name, and that a request number that does not exist does not', async () => {
    const { run } = commandOnFakes();
    expect((await run('U0CAROL', 'request')).responses[0]?.text).toBe(
      'Say which request: `/payments request 12`.',
    );
    expect((await run('U0CAROL', 'request 99')).responses[0]?.text).toBe(
      'Request #99 does not exist.',
    );
    expect((await run('U0CAROL', 'resolve 99 executed found it')).responses[0]?.text).toBe(
      'Request #99 does not exist.',
    );
  });

  it('resolves only an unknown outcome, only with what was checked, and records the approver’s word', async () => {
    const { run, requested, store } = commandOnFakes();
    const request = await requested();
    expect((await run('U0CAROL', `resolve ${request.id} executed`)).responses[0]?.text).toMatch(
      /^Say which request, what you found at the provider and what you checked/,
    );
    expect(
      (await run('U0CAROL', `resolve ${request.id} executed po_1 in the dashboard`)).responses[0]
        ?.text,
    ).toBe(`Request #${request.id} is pending: only an unknown outcome can be resolved.`);
    store.requests.set(request.id, { ...request, status: 'unknown' });
    const bolt = await run('U0CAROL', `resolve ${request.id} executed po_1 in the dashboard`);
    expect(bolt.responses[0]?.text).toBe(
      `Request #${request.id} is recorded as executed, on your word. Its message and the audit log say so.`,
    );
    expect(store.requests.get(request.id)?.reconciliation).toMatchObject({
      result: 'found',
      resolvedBy: 'U0CAROL',
    });
  });

  it('sends the audit log to the approvals channel only, wherever it was asked, and says where', async () => {
    const { run, lists } = commandOnFakes();
    lists.record(1, 'U0ALICE', 'created', 'pending');
    lists.record(1, 'U0BOB', 'rejected', 'rejected');
    const bolt = await run('U0CAROL', 'audit', 'C0PAYOPS');
    expect(bolt.said).toEqual(['ack', 'files.uploadV2', 'respond']);
    const upload = bolt.files[0]?.args;
    expect(upload).toMatchObject({
      channel_id: CARD.channelId,
      initial_comment: '<@U0CAROL> asked for the audit log.',
      title: 'payops audit log, part 1 (events 1 to 2)',
    });
    expect(upload?.filename).toMatch(/^payops-audit-\d{4}-\d\d-\d\d-part-1\.csv$/);
    expect(String(upload?.content).split('\r\n')).toHaveLength(3);
    expect(bolt.responses[0]?.text).toBe(
      `The audit log (2 events, the newest included) is attached as a CSV in <#${CARD.channelId}>.`,
    );
  });

  it('gives the approver a reference, also in the log, when the store fails inside payops', async () => {
    const { run, lists, approvals } = commandOnFakes();
    lists.listPending = async () => {
      throw new Error('the database is gone');
    };
    const bolt = await run('U0CAROL', 'requests');
    expect(bolt.said).toEqual(['ack', 'respond']);
    expect(referenceIn(bolt.responses[0]?.text, approvals.lines).logged).toBe(true);
  });
});
