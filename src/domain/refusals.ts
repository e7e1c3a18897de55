import type { RequestStatus } from './approval.ts';

/**
 * Why an act on a request (an approval, a rejection, a cancel, an outcome resolved by hand) did
 * nothing, with what the person needs to know; worded on the Slack side
 * (src/slack/text/approvals.ts).
 */
export type Refusal =
  // The approval rules (src/domain/policy.ts).
  | { code: 'not_pending'; status: Exclude<RequestStatus, 'pending'> }
  | { code: 'expired' }
  | { code: 'own_request' }
  | { code: 'already_approved' }
  /**
   * Steps fill in order (src/domain/approval-chain.ts): `step` of `steps` waits, for `approvers`;
   * `samePersonMayFillSteps` when one person may fill more than one step.
   */
  | {
      code: 'not_in_open_step';
      step: number;
      steps: number;
      approvers: string[];
      samePersonMayFillSteps?: true | undefined;
    }
  /**
   * The approver may approve up to `limit` and the request asks more: the open `step`'s cap (its
   * `max_amount`), or the approver's own (`approver_limits`, naming `approver`: them or a group).
   */
  | {
      code: 'over_approval_limit';
      step?: number | undefined;
      approver?: string | undefined;
      limit: string;
      amount: string;
      currency: string;
    }
  // Where the click came from, and what it showed.
  | { code: 'not_its_card'; id: number }
  | { code: 'card_differs'; id: number }
  | { code: 'home_differs'; id: number }
  | { code: 'home_changed'; id: number; approvals: number; required: number }
  // Whether the approvers are approvers still, asked of Slack at the completing click.
  | { code: 'approvers_unconfirmed' }
  | { code: 'no_longer_approver'; id: number }
  // Deciding a request: rejecting, cancelling, resolving an unknown outcome.
  | { code: 'already_decided'; id: number; status: RequestStatus }
  | { code: 'not_requester' }
  | { code: 'changed_meanwhile' }
  | { code: 'outcome_known'; id: number; status: RequestStatus }
  | { code: 'already_resolved'; id: number; by: string }
  | { code: 'found_at_provider'; id: number }
  | { code: 'own_outcome'; id: number };

export type RefusalCode = Refusal['code'];
