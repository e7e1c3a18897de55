import { compareDecimal, isDecimalString } from './decimal.ts';

/**
 * An approval chain: the steps a policy rule names (`steps:`), in order, each filled by
 * approvals from its own people (Slack user groups `S…` and users `U…`). Stored with the request
 * it was decided for and sealed with it, so a later policy cannot change what an approval fills.
 */

export interface ApprovalStep {
  /** User group ids (`S…`) and user ids (`U…`/`W…`), as the policy file wrote them. */
  approvers: readonly string[];
  /** Distinct approvals the step needs. */
  approvals: number;
  /** The most its people may approve (a decimal, in the request's currency); none: no cap. */
  maxAmount?: string | undefined;
}

export interface ApprovalChain {
  /** The rule's place in the policy file (`rules[rule]`). */
  rule: number;
  /** The policy version (`policyVersion`) whose rule it is. */
  policyVersion: string;
  steps: readonly ApprovalStep[];
  /**
   * One approver may fill more than one step (the rule's `same_person_may_fill_steps: true`),
   * still once per step; absent: one person counts for one step of a request.
   */
  samePersonMayFillSteps?: true | undefined;
}

/** An approval as a chain counts it: the step it filled, if any. */
export interface StepFilled {
  step?: number | undefined;
}

/**
 * Whether `approverId`'s approval of `step` would count again for someone already counted: a
 * chain that lets one person fill several steps asks only whether they filled this one.
 */
export function alreadyCounted(
  chain: Pick<ApprovalChain, 'samePersonMayFillSteps'> | undefined,
  approvals: ReadonlyArray<StepFilled & { userId: string }>,
  approverId: string,
  step: number | undefined,
): boolean {
  return approvals.some(
    (approval) =>
      approval.userId === approverId &&
      (chain?.samePersonMayFillSteps !== true || approval.step === step),
  );
}

/** A request over a step's `max_amount`: passed to the next step (`next_step`), or refused. */
export type OverCap = 'next_step' | 'refuse';

/** The step (1 is the first) whose cap a request is over, refusing it. */
export interface StepCapRefusal {
  step: number;
  limit: string;
  amount: string;
}

/**
 * The steps a request of `amount` keeps: those whose cap it is within, the others passed over
 * (`next_step`); or the step that refuses it (`refuse`, or no step left). An amount that is not
 * a decimal is over every cap: fail closed.
 */
export function stepsWithin(
  steps: readonly ApprovalStep[],
  overCap: OverCap,
  amount: string,
): { steps: ApprovalStep[] } | { refused: StepCapRefusal } {
  const over = (step: ApprovalStep) =>
    step.maxAmount !== undefined &&
    (!isDecimalString(amount) || compareDecimal(amount, step.maxAmount) > 0);
  const first = steps.findIndex(over);
  const kept = steps.filter((step) => !over(step));
  if (first === -1) return { steps: [...steps] };
  if (overCap === 'next_step' && kept.length > 0) return { steps: kept };
  const at = overCap === 'refuse' ? first : steps.findLastIndex(over);
  return {
    refused: { step: at + 1, limit: (steps[at] as ApprovalStep).maxAmount as string, amount },
  };
}

/** The approvals a chain needs in all: the sum of its steps'. */
export function chainApprovals(steps: readonly ApprovalStep[]): number {
  return steps.reduce((total, step) => total + step.approvals, 0);
}

/** How many approvals each step has, from the approvals that name their step. */
export function stepCounts(chain: ApprovalChain, approvals: readonly StepFilled[]): number[] {
  return chain.steps.map(
    (_, index) => approvals.filter((approval) => approval.step === index).length,
  );
}

/** The step waiting for approvals (steps fill in order), or undefined when all are done. */
export function openStep(
  chain: ApprovalChain,
  approvals: readonly StepFilled[],
): number | undefined {
  const counts = stepCounts(chain, approvals);
  const open = chain.steps.findIndex((step, index) => (counts[index] ?? 0) < step.approvals);
  return open === -1 ? undefined : open;
}
