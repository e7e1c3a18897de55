import { describe, expect, it } from 'vitest';
import { AccessControl } from '../../src/app/access.ts';
import { ApprovalWorkflow } from '../../src/app/approvals.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';
import { createLogger } from '../../src/logger.ts';
import { OutcomeUnknownError } from '../../src/payments/errors.ts';
import { FakePayments } from '../fakes/payments.ts';
import { FakeRequestStore } from '../fakes/request-store.ts';
import { newRequest, testSigner } from '../helpers/requests.ts';

/**
 * The approval workflow's rules on the fake store and the fake provider: who may approve, the one
 * write of the approval completing the count, the freeze, an unknown outcome, a rejection, a
 * cancel and expiry.
 */

const LEASE_MS = 60_000;
const CARD = { channelId: 'C0APPROVALS', messageTs: '1.000100' };
/** A balance the payouts of these tests fit in. */
const FUNDED = { balances: { USDC: '1000000.00' } };

function setUp(options: { requiredApprovals?: number; now?: () => Date } = {}) {
  const store = new FakeRequestStore({ now: () => (options.now?.() ?? new Date()).getTime() });
  const payments = new FakePayments()
    .answer('getWalletBalance', () => FUNDED)
    .answer('createPayout', () => ({ id: 'po_1', status: 'pending' }))
    .answer('listPayouts', () => ({ data: [] }));
  const workflow = new ApprovalWorkflow({
    store,
    client: payments,
    signer: testSigner,
    preflight: 'warn',
    keyScopes: ['read', 'payments:write'],
    policy: DEFAULT_POLICY,
    access: new AccessControl({ members: async () => [] }),
    roles: {
      requesters: parseRoleMembers('U0ALICE,U0BOB', 'requester').members,
      approvers: parseRoleMembers('U0ALICE,U0BOB,U0CAROL', 'approver').members,
    },
    instanceId: 'unit',
    leaseMs: LEASE_MS,
    logger: createLogger({ level: 'silent', secrets: [] }),
    ...(options.now && { now: options.now }),
  });
  /** A pending request by U0ALICE, its approval card posted. */
  async function requested(overrides: Parameters<typeof newRequest>[0] = {}) {
    const created = await store.create(
      newRequest({ requiredApprovals: options.requiredApprovals ?? 1, ...overrides }),
    );
    const posted: PaymentRequest = { ...created, ...CARD };
    store.requests.set(created.id, posted);
    return posted;
  }
  return { store, payments, workflow, requested };
}

/** A click on `request`'s card, whose Approve button carries its fingerprint. */
function cardOf(request: PaymentRequest) {
  return { ...CARD, fingerprint: request.fingerprint };
}

describe('ApprovalWorkflow', () => {
  it('never lets a requester approve their own request', async () => {
    const { workflow, payments, requested } = setUp();
    const request = await requested();
    const result = await workflow.approve(request.id, 'U0ALICE', cardOf(request));
    expect(result).toMatchObject({ kind: 'refused', code: 'own_request' });
    expect(payments.count('createPayout')).toBe(0);
  });

  it('sends exactly one write, with exactly the approved body, at the approval completing the count', async () => {
    const { workflow, payments, store, requested } = setUp({ requiredApprovals: 2 });
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
    const { workflow, payments, requested } = setUp();
    const request = await requested();
    await workflow.setFreeze(true, 'U0CAROL', 'drill');
    const result = await workflow.approve(request.id, 'U0BOB', cardOf(request));
    expect(result).toMatchObject({ kind: 'frozen', freeze: { frozen: true, reason: 'drill' } });
    expect(payments.count('createPayout')).toBe(0);
  });

  it('sends nothing when payments are frozen between the claim and the write', async () => {
    const { workflow, payments, store, requested } = setUp();
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
    const { workflow, payments, requested } = setUp();
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
    const { workflow, payments, requested } = setUp();
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
    const { workflow, requested } = setUp();
    const request = await requested();
    expect(await workflow.cancel(request.id, 'U0BOB')).toMatchObject({
      kind: 'refused',
      code: 'not_requester',
    });
  });

  it('refuses an approval past the expiry, and the sweep expires the request', async () => {
    let now = new Date();
    const { workflow, payments, requested } = setUp({ now: () => now });
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
