import type { DecideResult } from '../../app/approvals.ts';
import { cancelAnswerText, type Speaking } from './approvals.ts';

/**
 * What payops says of an approver's question and of a requester's edit and resubmit
 * (src/domain/resubmit.ts): the question's form and the answers to its clicks.
 */

/** The question form's own errors, shown under its field. */
export const ASK_FORM = {
  unknownRequest: 'This form is not for a known request.',
  noQuestion: 'Write the question for the requester.',
} as const;

/** An approver's question: asked, or why not. */
export function askAnswerText(speaking: Speaking, id: number, result: DecideResult): string {
  if (result.kind === 'done') {
    return `Your question is in the thread of #${id}, for its requester. It stays pending; approve or reject it when you have the answer.`;
  }
  if (result.kind === 'refused' && result.code === 'own_request') {
    return `You requested #${id}: another approver asks the questions. Answer in its thread, or edit and resubmit it.`;
  }
  return cancelAnswerText(speaking, id, result);
}

export function askFailedText(reference: string): string {
  return `payops could not record the question just now (reference ${reference}); nothing changed. Try again.`;
}

/** A click on Edit and resubmit that does not open the form: why. */
export function resubmitRefusalText(
  speaking: Speaking,
  id: number,
  result: Exclude<DecideResult, { kind: 'done' }>,
): string {
  if (result.kind === 'refused' && result.code === 'not_requester') {
    return `Only the person who requested #${id} can edit and resubmit it.`;
  }
  return cancelAnswerText(speaking, id, result);
}
