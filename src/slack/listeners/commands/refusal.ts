import type { AccessDecision } from '../../../app/access.ts';
import type { SlackMessage } from '../../blocks/format.ts';
import { renderNotAllowed } from '../../blocks/messages.ts';
import type { CommandDeps } from './deps.ts';

/**
 * The plain refusal, naming nobody, for someone who holds no role at all (not a reader, a
 * requester or an approver): they are told the same whatever they typed, as `help` tells them.
 * Undefined when they hold one, or when Slack could not say: the command's own check answers.
 * `first` is the role the command needs, asked first so its holders cost one check.
 */
export async function noRoleRefusal(
  deps: CommandDeps,
  userId: string,
  first: 'requester' | 'approver',
): Promise<SlackMessage | undefined> {
  const { workflow } = deps.approvals;
  const check = {
    requester: () => workflow.canRequest(userId),
    approver: () => workflow.canApprove(userId),
  };
  const needed = await check[first]();
  if (needed.allowed) return undefined;
  const others = await Promise.all([
    deps.access.check(deps.readers, userId),
    check[first === 'requester' ? 'approver' : 'requester'](),
  ]);
  return [needed, ...others].every(isNotMember) ? renderNotAllowed(deps.accessAdmin) : undefined;
}

function isNotMember(decision: AccessDecision): boolean {
  return !decision.allowed && decision.reason === 'not_member';
}
