import { describe, expect, it } from 'vitest';
import type { WriteIntent } from '../../src/domain/approval.ts';
import { fieldsOf } from '../../src/domain/approval.ts';
import { CARD, cardOf, workflowOnFakes } from '../helpers/workflow.ts';

/** The edited request: `old`'s fields with another amount. */
function edited(old: { body: string | undefined }, amount: string): WriteIntent {
  return { operationId: 'createPayout', path: {}, fields: { ...fieldsOf(old), amount } };
}

describe('asking the requester a question', () => {
  it('records the question on the pending request and tells its thread; nothing is decided', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const result = await workflow.ask(request.id, 'U0BOB', 'Which invoice?', CARD);
    expect(result.kind).toBe('done');
    const asked = store.requests.get(request.id);
    expect(asked?.status).toBe('pending');
    expect(asked?.question).toMatchObject({ by: 'U0BOB', text: 'Which invoice?' });
    expect(store.deliveries.of(request.id)).toContain('question');
  });

  it('is refused to a non-approver, to its requester, off its card, and once decided', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    expect((await workflow.ask(request.id, 'U0ERIN', 'Why?', CARD)).kind).toBe('not_allowed');
    expect(await workflow.ask(request.id, 'U0ALICE', 'Why?', CARD)).toMatchObject({
      kind: 'refused',
      code: 'own_request',
    });
    const elsewhere = { channelId: 'C0OTHER', messageTs: '9.9' };
    expect(await workflow.ask(request.id, 'U0BOB', 'Why?', elsewhere)).toMatchObject({
      code: 'not_its_card',
    });
    await workflow.reject(request.id, 'U0CAROL', 'no', CARD);
    expect(await workflow.ask(request.id, 'U0BOB', 'Why?', CARD)).toMatchObject({
      code: 'already_decided',
    });
    expect(store.requests.get(request.id)?.question).toBeUndefined();
  });
});

describe('editing and resubmitting', () => {
  it('only its requester may, while it is pending', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    expect(await workflow.resubmittable(request.id, 'U0BOB')).toMatchObject({
      kind: 'refused',
      code: 'not_requester',
    });
    expect(await workflow.resubmittable(request.id, 'U0ALICE')).toMatchObject({
      kind: 'resubmittable',
      request: { id: request.id },
    });
    expect((await workflow.resubmittable(999, 'U0ALICE')).kind).toBe('not_found');
  });

  it('makes a new request with its own fingerprint and no approvals, showing what changed; the old one is superseded', async () => {
    const { workflow, store, requested } = workflowOnFakes({ requiredApprovals: 2 });
    const old = await requested();
    await workflow.approve(old.id, 'U0BOB', cardOf(old));
    const result = await workflow.request(
      edited(old, '30.00'),
      'U0ALICE',
      'C0APPROVALS',
      undefined,
      old.id,
    );
    if (result.kind !== 'created') throw new Error(`not created: ${result.kind}`);
    expect(result.request.fingerprint).not.toBe(old.fingerprint);
    expect(result.request.approvals).toEqual([]);
    expect(result.request.labels?.replaces).toEqual({
      id: old.id,
      changes: [{ field: 'amount', before: '10000.00', after: '30.00' }],
    });
    expect(store.requests.get(old.id)?.status).toBe('superseded');
    expect(await workflow.approve(old.id, 'U0CAROL', cardOf(old))).toMatchObject({
      kind: 'refused',
      code: 'not_pending',
    });
  });

  it("is refused, nothing stored, for someone else's request or one no longer pending", async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const old = await requested();
    const count = store.requests.size;
    expect(
      await workflow.request(edited(old, '31.00'), 'U0BOB', 'C0APPROVALS', undefined, old.id),
    ).toMatchObject({ kind: 'not_superseded', code: 'not_requester' });
    await workflow.cancel(old.id, 'U0ALICE');
    expect(
      await workflow.request(edited(old, '31.00'), 'U0ALICE', 'C0APPROVALS', undefined, old.id),
    ).toMatchObject({ kind: 'not_superseded', code: 'already_decided' });
    expect(store.requests.size).toBe(count);
  });
});
