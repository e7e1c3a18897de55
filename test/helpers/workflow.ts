import { AccessControl } from '../../src/app/access.ts';
import { ApprovalWorkflow } from '../../src/app/approvals.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';
import { createLogger } from '../../src/logger.ts';
import { outcomeWords } from '../../src/slack/text/outcomes.ts';
import { FakePayments } from '../fakes/payments.ts';
import { FakeRequestStore } from '../fakes/request-store.ts';
import { newRequest, testSigner } from './requests.ts';

/** Where the requests of `workflowOnFakes` have their approval card. */
export const CARD = { channelId: 'C0APPROVALS', messageTs: '1.000100' };
/** A balance the payouts of the tests fit in. */
export const FUNDED = { balances: { USDC: '1000000.00' } };

/**
 * The approval workflow on the fake store and the fake provider (which funds, accepts and lists
 * payouts): U0ALICE and U0BOB request, U0ALICE, U0BOB and U0CAROL approve.
 */
export function workflowOnFakes(options: { requiredApprovals?: number; now?: () => Date } = {}) {
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
    leaseMs: 60_000,
    logger: createLogger({ level: 'silent', secrets: [] }),
    ...(options.now && { now: options.now }),
    outcomeWords: outcomeWords('/pay'),
  });
  /** A pending request by U0ALICE, its approval card posted at CARD. */
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
export function cardOf(request: PaymentRequest) {
  return { ...CARD, fingerprint: request.fingerprint };
}
