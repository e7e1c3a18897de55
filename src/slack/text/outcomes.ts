import type { OutcomeNote, OutcomeWords } from '../../app/outcome-words-port.ts';
import { findingText } from './preflight.ts';
import { providerErrorText } from './provider-errors.ts';

/**
 * What payops says of an outcome it decided (src/app/outcome-words-port.ts): the workflow stores
 * these words with the outcome, so the card, the thread and the audit log tell the same.
 * `command` is the slash command as configured.
 */
export function outcomeWords(command: string): OutcomeWords {
  return (note) => outcomeText(note, command);
}

function outcomeText(note: OutcomeNote, command: string): string {
  switch (note.code) {
    case 'seal_broken':
      return "The stored request no longer matches what was approved: someone changed it in payops's database. Approvers: find out who can write there before approving anything else; the requester may request it again.";
    case 'approval_mismatch':
      return 'The stored payload or its approvals no longer match what was approved; nothing was sent.';
    case 'balance_too_low':
      return `The wallet's balance is now too low (${findingText(note.balance.finding)}): nothing was sent. Make a new request when the funds are there.`;
    case 'store_unreachable':
      return 'payops could not reach its database right before sending it: nothing was sent. Make a new request if it is still wanted.';
    case 'frozen':
      return `Payments were frozen (${note.freezeReason ?? 'no reason given'}) before it was sent: nothing was sent. Make a new request after ${command} unfreeze.`;
    case 'claim_lost':
      return 'payops lost its claim on it before sending (it waited longer than the execution lease): nothing was sent. Make a new request if it is still wanted.';
    case 'balance_unchecked':
      return `The balance was not compared right before sending (${findingText(note.balance.finding)}): it was sent as approved.`;
    case 'send_failed':
      return 'payops failed while sending it';
    case 'provider_error':
      return providerErrorText(note.error);
  }
}
