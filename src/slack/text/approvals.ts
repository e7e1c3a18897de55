import type { ApproveResult, DecideResult, Denied, RequestResult } from '../../app/approvals.ts';
import { OPERATIONS, type WriteOperationId } from '../../domain/operations.ts';
import { checksText, statusWords } from '../blocks/approval-card.ts';
import { freeText, notice, type SlackMessage } from '../blocks/format.ts';
import {
  heldText,
  noSuchRequestText,
  renderDenied,
  renderMissingScopes,
} from '../blocks/messages.ts';

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

/** A modal left saying "one moment" when filling it failed. */
export const MODAL_FAILED =
  'Something failed inside payops: nothing was done. Close this and try again.';

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
      return result.reason;
    case 'held':
      return heldText(`Your approval of #${id} was not counted (it stays pending)`, result.twin);
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
export function cancelAnswerText(id: number, result: DecideResult, accessAdmin: string): string {
  switch (result.kind) {
    case 'done':
      return `Request #${id} is cancelled; nothing was sent.`;
    case 'refused':
      return result.reason;
    case 'not_found':
      return noSuchRequestText(id);
    case 'not_allowed':
      return deniedText(result, accessAdmin);
  }
}

/** Why a rejection changed nothing, or undefined when it was recorded. */
export function rejectionRefusalText(
  id: number,
  result: DecideResult,
  accessAdmin: string,
): string | undefined {
  return result.kind === 'done' ? undefined : cancelAnswerText(id, result, accessAdmin);
}

export function rejectedText(id: number): string {
  return `Request #${id} is rejected; nothing was sent.`;
}

export const REJECTION_FAILED =
  'payops could not record the rejection just now; nothing changed. Try again.';

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
  result: RequestResult,
  operationId: WriteOperationId,
  accessAdmin: string,
): SlackMessage | undefined {
  switch (result.kind) {
    case 'created':
      return undefined;
    case 'not_allowed':
      return renderDenied(result.decision, accessAdmin);
    case 'missing-scopes':
      return renderMissingScopes(OPERATIONS[operationId].summary, result.missing);
    case 'held':
      return notice(heldText('Not requested', result.twin));
    case 'refused':
      return notice(
        `:no_entry: *Not requested, nothing stored:* ${freeText(result.reason, 600)}.`,
        [checksText(result.checks)],
      );
  }
}
