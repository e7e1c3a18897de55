import type { PreflightCheck, PreflightFinding } from '../../domain/approval.ts';
import { providerAmountText } from '../../domain/decimal.ts';
import { providerErrorText } from './provider-errors.ts';

/**
 * What a pre-flight check found (src/app/preflight.ts), in a person's words: on the approval
 * card, in a refusal to request, in a write stopped or let out by the balance read before sending.
 * Ids, statuses and currencies are the provider's; the caller makes them safe for mrkdwn.
 */
export function findingText(finding: PreflightFinding): string {
  switch (finding.code) {
    case 'wallet_exists':
      return `${finding.walletId} exists`;
    case 'no_wallet':
      return `the provider has no wallet ${finding.walletId}`;
    case 'available':
      return `${providerAmountText(finding.available, finding.currency)} available`;
    case 'insufficient':
      return `${providerAmountText(finding.available, finding.currency)} available, less than the ${finding.requested} requested`;
    case 'balance_shape_unknown':
      return 'the balance reply does not show amounts by currency';
    case 'no_currency':
      return `the ${finding.what} names no currency to compare with`;
    case 'currency_case':
      return `the wallet's balance is in ${finding.held}; the ${finding.what} says ${finding.currency}, which is not the same text: the provider may refuse it`;
    case 'other_currencies': {
      const held = finding.held.map((each) => providerAmountText(each.amount, each.currency));
      return `the wallet holds ${held.join(', ')}; the ${finding.what} is in ${finding.currency}: payops cannot compare them`;
    }
    case 'balance_timed_out':
      return 'no answer in time';
    case 'recipient_exists':
      return `${finding.recipientId} exists (its status is not shown)`;
    case 'recipient_active':
      return `${finding.recipientId} is ${finding.status}`;
    case 'recipient_inactive':
      return `${finding.recipientId} is ${finding.status}, not active`;
    case 'recipient_status_unknown':
      return `${finding.recipientId} is ${finding.status}: payops does not know whether that status can be paid`;
    case 'no_recipient':
      return `the provider has no recipient ${finding.recipientId}`;
    case 'corridor_exists':
      return `${finding.corridorId} exists`;
    case 'no_corridor':
      return `${finding.corridorId} is not among the provider's corridors`;
    case 'corridor_not_seen':
      return `${finding.corridorId} is not on the part of the corridor list payops could read`;
    case 'corridor_list_shape_unknown':
      return 'the corridor list is not in a shape payops reads';
    case 'rail_listed':
      return `${finding.corridorId} lists ${finding.rail}`;
    case 'rail_case':
      return `${finding.corridorId} lists ${finding.listed}; the request says ${finding.rail}, which is not the same text: the provider may refuse it`;
    case 'rail_not_listed':
      return `${finding.corridorId} lists ${finding.rails.join(', ')}, not ${finding.rail}`;
    case 'read_failed': {
      const why = finding.error ? providerErrorText(finding.error) : 'payops failed to ask';
      return `${READS[finding.read]}: ${why}`;
    }
  }
}

const READS = {
  balance: "could not read the wallet's balance",
  recipient: 'could not read the recipient',
  corridors: 'could not list corridors',
} as const;

/** What the checks that refused a request found, one after another. */
export function refusingText(refusing: readonly PreflightCheck[]): string {
  return refusing.map((check) => findingText(check.finding)).join('; ');
}
