import { fingerprint, holdKey } from '../../src/domain/approval.ts';
import type { NewRequest, StillCounted } from '../../src/store/request-store.ts';

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

export function newRequest(overrides: Partial<NewRequest> = {}): NewRequest {
  const body = overrides.body ?? payoutBody();
  return {
    operationId: 'createPayout',
    path: {},
    body,
    fingerprint: fingerprint('createPayout', {}, body),
    holdKey: holdKey('createPayout', {}, body),
    requesterId: 'U0ALICE',
    requiredApprovals: 1,
    expiresAt: new Date(Date.now() + 60_000),
    requesterChannelId: 'C0PAYOPS',
    ...overrides,
  };
}

/** Every earlier approval still counts: its approver is still one. */
export const allStillCount: StillCounted = async (request) => ({
  counted: request.approvals.length,
});
