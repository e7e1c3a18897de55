import type { PaymentRequest } from '../../src/domain/approval.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import { Signer } from '../../src/domain/signer.ts';
import { PayloadCipher } from '../../src/store/payload-cipher.ts';
import type { ApprovalChecks, ApprovalRule, NewRequest } from '../../src/store/request-store.ts';

/** The tests' signing key: made up, as every deployment's is its own. */
export const testSigner = new Signer(Buffer.alloc(32, 7));

/** The tests' encryption key for stored payloads. */
export const testCipher = new PayloadCipher({
  current: { id: 'test1', key: Buffer.alloc(32, 9) },
  old: [],
});

let payees = 0;

/**
 * A payout to a payee of its own: the same write twice is held while one of them is unsettled,
 * which only the tests about that want.
 */
export function payoutBody(): string {
  payees++;
  return JSON.stringify({
    wallet_id: 'wal_1',
    amount: '10000.00',
    currency: 'USDC',
    beneficiary_name: `Payee ${payees}`,
  });
}

/** A new request, sealed with the tests' key as it is finally made (`overrides` included). */
export function newRequest(overrides: Partial<NewRequest> = {}): NewRequest {
  const body = overrides.body ?? payoutBody();
  const request: NewRequest = {
    operationId: 'createPayout',
    path: {},
    body,
    fingerprint: testSigner.fingerprint('createPayout', {}, body),
    holdKey: testSigner.holdKey('createPayout', {}, body),
    requesterId: 'U0ALICE',
    requiredApprovals: 1,
    expiresAt: new Date(Date.now() + 60_000),
    requesterChannelId: 'C0PAYOPS',
    sealOf: (id) => testSigner.requestSeal({ ...request, id }),
    ...overrides,
  };
  return request;
}

/** `refusal`'s rules, every earlier approval still counting, sealed with the tests' key. */
export function checks(
  refusal: ApprovalRule = () => undefined,
  stillCounted: ApprovalChecks['stillCounted'] = async (request) => ({
    counted: request.approvals.length,
  }),
): ApprovalChecks {
  return {
    refusal,
    stillCounted,
    seal: (request, approverId) => testSigner.approvalSeal(request, approverId),
    sealHolds: (request) => request.seal === testSigner.requestSeal(request),
  };
}

/**
 * A stored request as the store returns it: pending #12 asking `operationId` with `body`,
 * fingerprinted with the tests' key, posted in C1; `overrides` change any fact.
 */
export function storedRequest(
  operationId: WriteOperationId,
  path: Record<string, string>,
  body: string | undefined,
  overrides: Partial<PaymentRequest> = {},
): PaymentRequest {
  return {
    id: 12,
    operationId,
    path,
    body,
    fingerprint: testSigner.fingerprint(operationId, path, body),
    holdKey: testSigner.holdKey(operationId, path, body),
    requesterId: 'U01',
    status: 'pending',
    requiredApprovals: 1,
    approvals: [],
    createdAt: '2026-03-01T10:00:00.000Z',
    expiresAt: '2026-03-02T10:00:00.000Z',
    channelId: 'C1',
    messageTs: '1700000000.000100',
    decidedBy: undefined,
    reason: undefined,
    outcome: undefined,
    reconciliation: undefined,
    updatedAt: '2026-03-01T11:00:00.000Z',
    ...overrides,
  };
}
