import { randomUUID } from 'node:crypto';
import type { PaymentRequest, UnsettledTwin } from '../../domain/approval.ts';
import type { Refusal } from '../../domain/refusals.ts';
import { type ApprovalWrite, approveAndClaim, recordApproval } from './approval-writes.ts';
import { assertTransition } from './audit.ts';
import { type FreezeState, loadWithFreeze } from './freeze.ts';
import type { RequestDb } from './rows.ts';

/** What counting one approval did. */
export type CountApprovalResult =
  | { kind: 'not_found' }
  | ({ kind: 'refused'; request: PaymentRequest } & Refusal)
  /** Not counted: another request for the same write is unsettled. */
  | { kind: 'held'; twin: UnsettledTwin; request: PaymentRequest }
  | { kind: 'frozen'; freeze: FreezeState; request: PaymentRequest }
  /** Counted; more approvals are needed. */
  | { kind: 'recorded'; request: PaymentRequest }
  /**
   * Counted, and it was the last one needed: this caller alone must now execute it, proving it
   * still holds the claim with `claimToken` (`markSending`).
   */
  | { kind: 'claimed'; request: PaymentRequest; claimToken: string };

/**
 * Checked on the request as read (the approval counts only if it is unchanged since): why this
 * approval must not count, or undefined.
 */
export type ApprovalRule = (request: PaymentRequest, approverId: string) => Refusal | undefined;

/** What an approval is checked against and sealed with, on the request as read. */
export interface ApprovalChecks {
  refusal: ApprovalRule;
  /**
   * Asked only when this approval could complete the request: how many of its earlier
   * approvals still count (their approvers may no longer be approvers), or why it cannot tell.
   */
  stillCounted(request: PaymentRequest): Promise<{ counted: number } | { refusal: Refusal }>;
  /**
   * The step of the request's chain this approval fills, or why it fills none; undefined for a
   * request without a chain. Decided on the request as read, so two clicks at once cannot both
   * fill one step: the second one's write finds the request changed and decides again.
   */
  step?(
    request: PaymentRequest,
    approverId: string,
  ): { step: number } | { refusal: Refusal } | undefined;
  /** The seal of what this approver approves, and the step it fills (`Signer.approvalSeal`). */
  seal(request: PaymentRequest, approverId: string, step?: number): string;
  /** Whether the request is still what it was stored as (`Signer.requestSeal`). */
  sealHolds(request: PaymentRequest): boolean;
}

/** Reads and conditional writes of one approval before it gives up: each retry means another
 * click changed the request meanwhile, so this many in a row is a storm, not bad luck. */
const APPROVE_ATTEMPTS = 20;

/**
 * Counts one person's approval, once. When it completes the required number — and payments
 * are not frozen — the request moves to `executing` in the same statement and the caller
 * is told it alone holds the claim (`claimedBy`). A refused or frozen click changes nothing.
 */
export async function countApproval(
  store: RequestDb,
  {
    id,
    approverId,
    claimedBy,
    checks,
  }: { id: number; approverId: string; claimedBy: string; checks: ApprovalChecks },
): Promise<CountApprovalResult> {
  // Optimistic: the rules run on the request as read, and the write counts only if nothing
  // changed since (its version), so no transaction holds a lock across a round trip.
  const claimToken = randomUUID();
  for (let attempt = 1; attempt <= APPROVE_ATTEMPTS; attempt++) {
    const read = await loadWithFreeze(store, { id });
    if (!read) return { kind: 'not_found' };
    const { request, freeze, version } = read;
    const refusal = checks.refusal(request, approverId);
    if (refusal) return { kind: 'refused', ...refusal, request };
    const filled = checks.step?.(request, approverId);
    if (filled && 'refusal' in filled) return { kind: 'refused', ...filled.refusal, request };
    const step = filled?.step;
    // A request that is no longer what it was stored as (another payload copied in, a lowered
    // count) is claimed at its first approval, whatever count it shows: its claimer stops it
    // before the call, recorded and told as every stopped write is, and nothing is sent.
    const completes = (counted: number) =>
      !checks.sealHolds(request) || counted + 1 >= request.requiredApprovals;
    let counted = request.approvals.length;
    if (completes(counted)) {
      const earlier = await checks.stillCounted(request);
      if ('refusal' in earlier) return { kind: 'refused', ...earlier.refusal, request };
      counted = earlier.counted;
    }
    const seal = checks.seal(request, approverId, step);
    const approval: ApprovalWrite = {
      id,
      approverId,
      version,
      seal,
      step,
      detail: {
        approvals: counted + 1,
        required: request.requiredApprovals,
        // What the approval satisfied: the policy rule, its step (1 is the first), its version.
        ...(request.chain && {
          rule: request.chain.rule,
          step: (step ?? 0) + 1,
          policyVersion: request.chain.policyVersion,
        }),
        ...(counted < request.approvals.length && {
          notCounted: request.approvals.length - counted,
        }),
      },
    };
    const approved = (at: string) => [
      ...request.approvals,
      { userId: approverId, at, seal, ...(step !== undefined && { step }) },
    ];
    if (!completes(counted)) {
      const written = await recordApproval(store.db, approval);
      if (written.kind === 'expired') return { kind: 'refused', code: 'expired', request };
      // Changed since it was read (another approval, a decision): read it again.
      if (written.kind === 'changed') continue;
      return { kind: 'recorded', request: { ...request, approvals: approved(written.approvedAt) } };
    }
    if (freeze.frozen) return { kind: 'frozen', freeze, request };
    assertTransition(id, 'pending', 'executing');
    const claim = await approveAndClaim(store.db, {
      ...approval,
      holdKey: request.holdKey,
      paymentKey: request.paymentKey,
      claimedBy,
      claimToken,
    });
    if (claim.kind === 'expired') return { kind: 'refused', code: 'expired', request };
    if (claim.kind === 'changed') continue;
    if (claim.kind === 'held') return { kind: 'held', twin: claim.twin, request };
    const claimed: PaymentRequest = {
      ...request,
      approvals: approved(claim.approvedAt),
      status: 'executing',
      updatedAt: claim.claimedAt,
    };
    return { kind: 'claimed', request: claimed, claimToken };
  }
  throw new Error(
    `request ${id} changed ${APPROVE_ATTEMPTS} times while being approved; nothing was counted`,
  );
}
