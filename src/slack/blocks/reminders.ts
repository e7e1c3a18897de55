import type { PaymentRequest } from '../../domain/approval.ts';
import type { ReminderEvent } from '../../domain/reminders.ts';
import type { RoleMembers } from '../../domain/roles.ts';
import { type FreezeNotice, person, requestTitle, when } from './approval-card.ts';
import { endSentence, escapeMrkdwn, freeText, joinWithin, truncate } from './format.ts';

/**
 * A pending request's reminder in its thread: it nudges the approvers who may still approve
 * it (user groups as a whole: Slack tells their members), once after PAYOPS_REMIND_AFTER and
 * once in its last hour. While payments are frozen it nudges nobody — an approval could not
 * send it — and says so instead.
 */

export function renderReminder(
  request: PaymentRequest,
  event: ReminderEvent,
  approvers: RoleMembers,
  freeze: FreezeNotice | undefined,
  command: string,
): { text: string } {
  const what = `*${escapeMrkdwn(requestTitle(request))}*`;
  const count = `${request.approvals.length} of ${request.requiredApprovals} approvals`;
  const expiry = `It expires ${when(request.expiresAt)}`;
  if (freeze) {
    const reason = freeText(freeze.reason, 300) || '_no reason given_';
    return {
      text: truncate(
        `:octagonal_sign: ${what} is still waiting, with ${count}, but payments are frozen by ${person(freeze.by)} ${when(freeze.at)}: ${endSentence(reason)} No approval can send it until \`${command} unfreeze\`, so nobody is asked to approve it now. ${expiry}.`,
        3000,
      ),
    };
  }
  const who = mentions(request, approvers) || 'Approvers';
  const line =
    event === 'expiring'
      ? `:hourglass: ${who}: ${what} expires in less than an hour (${when(request.expiresAt)}) with ${count}; after that it can no longer be approved.`
      : `:bell: ${who}: ${what} has waited for approval since ${when(request.createdAt)} (${count}). ${expiry}.`;
  return {
    text: truncate(
      `${line} Approve or reject it on the message above, or from payops's Home tab.`,
      3000,
    ),
  };
}

/** The approvers who may still approve it: not its requester, nor who approved it already. */
function mentions(request: PaymentRequest, approvers: RoleMembers): string {
  const done = new Set([request.requesterId, ...request.approvals.map((a) => a.userId)]);
  const people = [...approvers.users].filter((userId) => !done.has(userId));
  return joinWithin([...people, ...approvers.groups].map(person), ' ', 1500);
}
