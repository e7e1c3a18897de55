import { describe, expect, it } from 'vitest';
import { OutcomeUnknownError } from '../../src/payments/errors.ts';
import { CARD, cardOf, FUNDED, workflowOnFakes } from '../helpers/workflow.ts';

/**
 * The approval workflow's rules on the fake store and the fake provider: who may approve, the one
 * write of the approval completing the count, the freeze, an unknown outcome, a rejection, a
 * cancel and expiry.
 */

describe('ApprovalWorkflow', () => {
  it('never lets a requester approve their own request', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    const result = await workflow.approve(request.id, 'U0ALICE', cardOf(request));
    expect(result).toMatchObject({ kind: 'refused', code: 'own_request' });
    expect(payments.count('createPayout')).toBe(0);
  });

  it('sends exactly one write, with exactly the approved body, at the approval completing the count', async () => {
    const { workflow, payments, store, requested } = workflowOnFakes({ requiredApprovals: 2 });
    const request = await requested();
    expect((await workflow.approve(request.id, 'U0BOB', cardOf(request))).kind).toBe('recorded');
    expect(payments.count('createPayout')).toBe(0);
    const last = await workflow.approve(request.id, 'U0CAROL', cardOf(request));
    expect(last).toMatchObject({ kind: 'executed', request: { status: 'submitted' } });
    const writes = payments.calls.filter((call) => call.operationId === 'createPayout');
    expect(writes).toHaveLength(1);
    expect(writes[0]?.input.body).toBe(request.body);
    expect((await workflow.approve(request.id, 'U0BOB', cardOf(request))).kind).toBe('refused');
    expect(payments.count('createPayout')).toBe(1);
    expect(store.deliveries.of(request.id)).toEqual([
      'created',
      'approved',
      'approved',
      'submitted',
    ]);
  });

  it('refuses the sending approval while payments are frozen, and sends nothing', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    await workflow.setFreeze(true, 'U0CAROL', 'drill');
    const result = await workflow.approve(request.id, 'U0BOB', cardOf(request));
    expect(result).toMatchObject({ kind: 'frozen', freeze: { frozen: true, reason: 'drill' } });
    expect(payments.count('createPayout')).toBe(0);
  });

  it('sends nothing when payments are frozen between the claim and the write', async () => {
    const { workflow, payments, store, requested } = workflowOnFakes();
    const request = await requested();
    payments.answer('getWalletBalance', () => {
      void store.setFreeze(true, 'U0CAROL', 'drill');
      return FUNDED;
    });
    const result = await workflow.approve(request.id, 'U0BOB', cardOf(request));
    expect(result).toMatchObject({ kind: 'executed', request: { status: 'failed' } });
    expect(payments.count('createPayout')).toBe(0);
  });

  it('records a write whose outcome is unknown as unknown, and never sends it again', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const request = await requested();
    payments.answer('createPayout', () => {
      throw new OutcomeUnknownError('connection_lost', { operationId: 'createPayout' });
    });
    const result = await workflow.approve(request.id, 'U0BOB', cardOf(request));
    expect(result).toMatchObject({ kind: 'executed', request: { status: 'unknown' } });
    await workflow.sweep();
    expect((await workflow.approve(request.id, 'U0CAROL', cardOf(request))).kind).toBe('refused');
    expect(payments.count('createPayout')).toBe(1);
    expect(payments.count('listPayouts')).toBeGreaterThan(0);
  });

  it('ends a request on a rejection or a cancel, with no write', async () => {
    const { workflow, payments, requested } = workflowOnFakes();
    const rejected = await requested();
    const cancelled = await requested();
    expect(await workflow.reject(rejected.id, 'U0BOB', 'not this month', CARD)).toMatchObject({
      kind: 'done',
      request: { status: 'rejected' },
    });
    expect(await workflow.cancel(cancelled.id, 'U0ALICE')).toMatchObject({
      kind: 'done',
      request: { status: 'cancelled' },
    });
    for (const { id, fingerprint } of [rejected, cancelled]) {
      expect((await workflow.approve(id, 'U0CAROL', { ...CARD, fingerprint })).kind).toBe(
        'refused',
      );
    }
    expect(payments.count('createPayout')).toBe(0);
  });

  it('lets only its requester cancel a request', async () => {
    const { workflow, requested } = workflowOnFakes();
    const request = await requested();
    expect(await workflow.cancel(request.id, 'U0BOB')).toMatchObject({
      kind: 'refused',
      code: 'not_requester',
    });
  });

  it('refuses an approval past the expiry, and the sweep expires the request', async () => {
    let now = new Date();
    const { workflow, payments, requested } = workflowOnFakes({ now: () => now });
    const request = await requested({ expiresAt: new Date(now.getTime() + 60_000) });
    now = new Date(now.getTime() + 61_000);
    expect(await workflow.approve(request.id, 'U0BOB', cardOf(request))).toMatchObject({
      kind: 'refused',
      code: 'expired',
    });
    expect(await workflow.sweep()).toMatchObject([{ id: request.id, status: 'expired' }]);
    expect(payments.count('createPayout')).toBe(0);
  });
});
