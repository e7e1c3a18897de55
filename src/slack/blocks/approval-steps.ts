import type { PaymentRequest } from '../../domain/approval.ts';
import { openStep, stepCounts } from '../../domain/approval-chain.ts';
import { joinWithin } from './format.ts';

/**
 * A request's approval chain as people read it (src/domain/approval-chain.ts): each step, who may
 * fill it, and what is done.
 */

/** `<!subteam^S1>` for a group, `<@U1>` for a user: Slack shows each by name. */
export function stepPeopleText(approvers: readonly string[]): string {
  const mentions = approvers.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`));
  return joinWithin(mentions, ' or ', 400) || '_nobody_';
}

/** One line per step of the request's chain, or undefined when it has none. */
export function stepsText(request: PaymentRequest): string | undefined {
  const { chain } = request;
  if (chain === undefined) return undefined;
  const counts = stepCounts(chain, request.approvals);
  const open = request.status === 'pending' ? openStep(chain, request.approvals) : undefined;
  const lines = chain.steps.map((step, index) => {
    const by = request.approvals
      .filter((approval) => approval.step === index)
      .map((approval) => `<@${approval.userId}>`);
    const done = (counts[index] ?? 0) >= step.approvals;
    const mark = done ? ':white_check_mark:' : index === open ? ':hourglass_flowing_sand:' : '▫️';
    const filled = by.length > 0 ? ` — approved by ${by.join(', ')}` : '';
    const cap = step.maxAmount === undefined ? '' : `, each up to ${step.maxAmount}`;
    return `${mark} Step ${index + 1}: ${step.approvals} from ${stepPeopleText(step.approvers)} (${counts[index] ?? 0} of ${step.approvals}${cap})${filled}`;
  });
  const rule = `rules[${chain.rule}] of policy version ${chain.policyVersion.slice(0, 12)}`;
  const samePerson = chain.samePersonMayFillSteps ? ', one person may fill more than one' : '';
  return [`*Approval steps, in order* (${rule}${samePerson}):`, ...lines].join('\n');
}
