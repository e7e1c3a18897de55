import type { ApproverGroupChange } from '../../domain/approver-group-change.ts';
import { notice, type SlackMessage, textWithMentions } from '../blocks/format.ts';

/**
 * What payops says in the approvals channel when an approver group's members change: who was
 * added and who removed, by group, each named as Slack mentions them.
 */

/** `<@U1> was added to approvers group <!subteam^S1>; <@U2> was removed.` */
export function approverGroupChangeText({ group, added, removed }: ApproverGroupChange): string {
  const where = `approvers group ${textWithMentions(group)}`;
  const parts: string[] = [];
  if (added.length > 0) parts.push(`${people(added)} ${were(added)} added to ${where}`);
  if (removed.length > 0) {
    parts.push(
      `${people(removed)} ${were(removed)} removed${parts.length > 0 ? '' : ` from ${where}`}`,
    );
  }
  return `${parts.join('; ')}.`;
}

/** The announcement of an approver group's change in the approvals channel. */
export function renderApproverGroupChange(change: ApproverGroupChange): SlackMessage {
  return notice(approverGroupChangeText(change));
}

/** `<@U1>`, `<@U1> and <@U2>`, `<@U1>, <@U2> and <@U3>`: a bare id mentions, anything else is escaped. */
function people(ids: readonly string[]): string {
  const named = ids.map((id) => textWithMentions(id));
  return named.length === 1
    ? (named[0] as string)
    : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

function were(ids: readonly string[]): string {
  return ids.length === 1 ? 'was' : 'were';
}
