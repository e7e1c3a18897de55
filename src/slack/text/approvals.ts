import type { ApproveResult, DecideResult, Denied, RequestResult } from '../../app/approvals.ts';
import type { PreflightCheck, RequestStatus, UnsettledTwin } from '../../domain/approval.ts';
import { OPERATIONS, type WriteOperationId } from '../../domain/operations.ts';
import type { Refusal } from '../../domain/refusals.ts';
import { checksText, statusWords } from '../blocks/approval-card.ts';
import { stepPeopleText } from '../blocks/approval-steps.ts';
import { counted, freeText, notice, type SlackMessage } from '../blocks/format.ts';
import { noSuchRequestText, renderDenied, renderMissingScopes } from '../blocks/messages.ts';
import { documentProblemText } from './documents.ts';
import { refusingText } from './preflight.ts';

/**
 * What payops says to the people of the approval flow: an approver's click on a card or a Home
 * tab, a rejection's form, a requester's cancel, a new request's refusal. `command` is the slash
 * command as configured, for answers that name one.
 */

export interface Speaking {
  accessAdmin: string;
  command: string;
}

/** A modal's text while payops reads what it needs to fill it. */
export const ONE_MOMENT = 'One moment…';

/** A modal left saying "one moment" when filling it failed; `reference` finds it in the logs. */
export function modalFailedText(reference: string): string {
  return `Something failed inside payops (reference ${reference}): nothing was done. Close this and try again.`;
}

const NOT_PENDING: Readonly<Record<Exclude<RequestStatus, 'pending'>, string>> = {
  executing: 'is already approved and being executed',
  submitted: 'was already approved and submitted',
  failed: 'was already approved and was not executed',
  unknown: 'was already approved and executed, with an unknown outcome',
  rejected: 'was rejected',
  cancelled: 'was cancelled',
  expired: 'has expired',
  superseded: 'was replaced by an edited request',
};

/** Why an approval, a rejection, a cancel or a resolution did nothing. */
export function refusalText(refusal: Refusal, command: string): string {
  switch (refusal.code) {
    case 'not_pending':
      return `This request ${NOT_PENDING[refusal.status]}, so it can no longer be approved.`;
    case 'expired':
      return 'This request has expired, so it can no longer be approved: ask for a new request.';
    case 'own_request':
      return 'You requested this, so you cannot approve it: a second person must.';
    case 'already_approved':
      return "You have already approved this request; one person's approval counts once.";
    case 'over_approval_limit':
      if (refusal.step === undefined) {
        return `You may approve up to ${refusal.limit} ${refusal.currency} (the policy's cap for ${stepPeopleText([refusal.approver ?? ''])}), and this request is for ${refusal.amount || 'an amount that is not a number'} ${refusal.currency}: your approval was not counted. An approver whose cap covers it must approve it.`;
      }
      return `Step ${refusal.step}'s approvers may approve up to ${refusal.limit} ${refusal.currency} each, and this request is for ${refusal.amount || 'an amount that is not a number'} ${refusal.currency}: your approval was not counted. A larger amount needs a policy rule naming who may approve it.`;
    case 'not_in_open_step':
      return `This request waits for step ${refusal.step} of ${refusal.steps}, which only ${stepPeopleText(refusal.approvers)} may approve: your approval was not counted. Its steps are approved in order, each by its own people, and one person counts ${refusal.samePersonMayFillSteps ? 'at most once in each step' : 'for one step'}.`;
    case 'not_its_card':
      return `Request #${refusal.id} can only be decided from its own approval message.`;
    case 'card_differs':
      return `Request #${refusal.id} is not what this approval message showed (its fingerprint differs): nothing was counted. Look at the message again before deciding.`;
    case 'home_differs':
      return `Request #${refusal.id} is not the one your Home showed: nothing was counted. Open your Home again.`;
    case 'home_changed':
      return `Request #${refusal.id} changed since your Home showed it (it now has ${refusal.approvals} of ${refusal.required} approvals): nothing was counted. Look at it again before deciding.`;
    case 'approvers_unconfirmed':
      return 'payops could not confirm with Slack that you and the earlier approvers are still approvers, so this approval was not counted. Try again in a minute.';
    case 'no_longer_approver':
      return `You are no longer an approver, so your approval of #${refusal.id} was not counted.`;
    case 'already_decided':
      return `Request #${refusal.id} is already ${refusal.status}.`;
    case 'not_requester':
      return 'Only the person who requested it can cancel it.';
    case 'changed_meanwhile':
      return 'It changed meanwhile.';
    case 'outcome_known':
      return `Request #${refusal.id} is ${refusal.status}: only an unknown outcome can be resolved.`;
    case 'already_resolved':
      return `Request #${refusal.id} was already resolved by <@${refusal.by}>.`;
    case 'found_at_provider':
      // The provider's id and status are on the card and in `/pay request N`, shown as data.
      return `payops found #${refusal.id} at the provider (its record is on the card and in \`${command} request ${refusal.id}\`): it was executed, so it cannot be resolved as not executed. If that record is another payment, check with the provider before requesting this one again.`;
    case 'own_outcome':
      return `You requested #${refusal.id}: another approver must confirm its outcome.`;
  }
}

export function deniedText(result: Denied, accessAdmin: string): string {
  return renderDenied(result.decision, accessAdmin).text;
}

/** What the approver is told of a click that did not execute the request. */
export function approvalAnswerText(
  speaking: Speaking,
  id: number,
  result: Exclude<ApproveResult, { kind: 'executed' }>,
): string {
  switch (result.kind) {
    case 'not_allowed':
      return deniedText(result, speaking.accessAdmin);
    case 'not_found':
      return noSuchRequestText(id);
    case 'refused':
      return refusalText(result, speaking.command);
    case 'held':
      return heldText(
        speaking.command,
        `Your approval of #${id} was not counted (it stays pending)`,
        result.twin,
      );
    case 'frozen':
      return `Payments are frozen (${result.freeze.reason ? freeText(result.freeze.reason, 300) : 'no reason given'}): your approval was not counted and #${id} stays pending. Approve it again after \`${speaking.command} unfreeze\`.`;
    case 'recorded':
      return `Your approval of #${id} is counted: ${result.request.approvals.length} of ${result.request.requiredApprovals}.`;
  }
}

/** What an approver is told in a modal of an approval clicked on their Home tab. */
export function homeApprovalAnswerText(
  speaking: Speaking,
  id: number,
  result: ApproveResult,
): string {
  if (result.kind !== 'executed') return approvalAnswerText(speaking, id, result);
  return `Your approval of #${id} completed it: ${statusWords(result.request)}. Its approval message and your Home show what follows.`;
}

/** A requester's cancel: done, or why not. */
export function cancelAnswerText(speaking: Speaking, id: number, result: DecideResult): string {
  switch (result.kind) {
    case 'done':
      return `Request #${id} is cancelled; nothing was sent.`;
    case 'refused':
      return refusalText(result, speaking.command);
    case 'not_found':
      return noSuchRequestText(id);
    case 'not_allowed':
      return deniedText(result, speaking.accessAdmin);
  }
}

/** Why a rejection changed nothing, or undefined when it was recorded. */
export function rejectionRefusalText(
  speaking: Speaking,
  id: number,
  result: DecideResult,
): string | undefined {
  return result.kind === 'done' ? undefined : cancelAnswerText(speaking, id, result);
}

export function rejectedText(id: number): string {
  return `Request #${id} is rejected; nothing was sent.`;
}

export function rejectionFailedText(reference: string): string {
  return `payops could not record the rejection just now (reference ${reference}); nothing changed. Try again.`;
}

/** The reject form's own errors, shown under its reason field. */
export const REJECT_FORM = {
  unknownRequest: 'This form is not for a known request.',
  noReason: 'Say why, so the requester can fix it.',
} as const;

/**
 * A write not requested, answered at once; undefined when it was stored (its card and the
 * requester's confirmation go out through the outbox).
 */
export function renderRequestResult(
  speaking: Speaking,
  result: RequestResult,
  operationId: WriteOperationId,
): SlackMessage | undefined {
  switch (result.kind) {
    case 'created':
      return undefined;
    case 'not_allowed':
      return renderDenied(result.decision, speaking.accessAdmin);
    case 'missing-scopes':
      return renderMissingScopes(OPERATIONS[operationId].summary, result.missing);
    case 'held':
      return notice(heldText(speaking.command, 'Not requested', result.twin));
    case 'refused':
      return notRequested(freeText(refusingText(result.refusing), 600), result.checks);
    case 'document_unreadable':
      return notRequested(documentProblemText(result.fileId, result.problem), []);
    case 'over_limit':
      return notRequested(
        `with ${counted(result.limit.requests, 'earlier request')} of yours to any payee in the last ${result.limit.window}, the total ${result.limit.total} ${result.limit.currencies.join('/')} would be over the limit of ${result.limit.limit} one requester may request, and the policy refuses past it`,
        [],
      );
    case 'over_step_cap':
      return notRequested(
        `its amount, ${result.cap.amount || 'not a number'} ${result.cap.currency}, is over the ${result.cap.limit} ${result.cap.currency} that step ${result.cap.step} of the policy's rules[${result.cap.rule}] may approve, and the policy refuses past it`,
        [],
      );
    case 'window_busy':
      return notRequested(
        'other requests to the same payee were being made at the same moment, so the approvals it needs could not be counted. Send it again',
        [],
      );
    case 'not_superseded':
      return notice(
        `:no_entry: *Not resubmitted, nothing stored:* ${refusalText(result, speaking.command)}`,
      );
  }
}

function notRequested(why: string, checks: readonly PreflightCheck[]): SlackMessage {
  return notice(`:no_entry: *Not requested, nothing stored:* ${why}.`, [checksText(checks)]);
}

/**
 * Why the same write or payment cannot be requested, or a pending twin approved, right now. `what` is the
 * refused act: `Not requested` or `Your approval of #13 was not counted`.
 */
function heldText(command: string, what: string, twin: UnsettledTwin): string {
  const state =
    twin.status === 'executing'
      ? 'is being sent to the provider right now'
      : 'has an unknown outcome, so it may have been executed';
  const settle =
    twin.status === 'executing'
      ? `Wait for its outcome on its approval message (\`${command} request ${twin.id}\`).`
      : `payops looks for it at the provider every minute (\`${command} request ${twin.id}\` shows what is known). Once it is found there, or an approver who looked at the provider says what happened with \`${command} resolve ${twin.id} executed|not-executed &lt;what you checked&gt;\`, try again.`;
  return `${what}: request #${twin.id} is for the same write or the same payment (payee, wallet, amount and currency) and ${state}. Nothing was done. ${settle}`;
}
