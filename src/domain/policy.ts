import { parseDocument } from 'yaml';
import { z } from 'zod';
import {
  fieldsOf,
  type LimitRaise,
  type PaymentRequest,
  type WindowRaise,
  type WriteIntent,
} from './approval.ts';
import {
  type ApprovalChain,
  type ApprovalStep,
  alreadyCounted,
  chainApprovals,
  type OverCap,
  openStep,
  type StepCapRefusal,
  stepsWithin,
} from './approval-chain.ts';
import { closest } from './commands.ts';
import { addDecimal, compareDecimal, isDecimalString } from './decimal.ts';
import { isWrite, OPERATION_IDS, OPERATIONS, type WriteOperationId } from './operations.ts';
import type { Refusal } from './refusals.ts';

/**
 * How many distinct people must approve a write, and how long a request may wait. Parsed from
 * the text of the optional policy file `PAYOPS_POLICY_FILE` (YAML, or JSON, which YAML reads
 * too; src/config.ts reads the file):
 *
 * ```yaml
 * default_approvals: 1          # optional, default 1, 1..5
 * expiry_hours: 24              # optional, default 24, 1..168
 * rules:                        # optional
 *   - operations: [createPayout, createTransfer]   # operation ids or /pay words; omitted = all writes
 *     currency: [USD, USDC]     # optional; one code or a list, compared case-insensitively
 *     min_amount: "10000"       # optional, quoted; the rule applies when amount >= min_amount
 *     window: 24h               # optional (needs min_amount): earlier requests count too
 *     approvals: 2              # 1..5
 *   - operations: [payout]      # a chain: steps filled in order, each by its own people
 *     currency: USD
 *     min_amount: "10000"
 *     steps:                    # instead of approvals (which is then the steps' total)
 *       - approvers: [S0TREASURY]          # Slack user groups (S…) and users (U…)
 *       - approvers: [S0FINLEADS, U0CFO]
 *         approvals: 1                     # optional, default 1
 *     same_person_may_fill_steps: true     # optional: one person may fill several steps
 *     over_cap: next_step       # optional: past a step's max_amount, its next step (default refuse)
 *   - operations: [payout]      # caps per person (a user U…, or each member of a group S…)
 *     currency: USD
 *     approvals: 1
 *     approver_limits: { U0BOB: "5000", S0TREASURY: "20000" }
 * ```
 *
 * A request needs the largest number among the default and every rule that matches it, so a
 * rule can only raise the count; a rule with steps counts as their total, and is the stricter
 * of two rules asking the same total (its approvers are fewer). Its request then has that
 * rule's chain (src/domain/approval-chain.ts). The request's currency is its `currency` field (payouts) or
 * else its `source_currency` (what leaves the wallet); its amount is its `amount` field.
 *
 * A currency is its code: `USD` and `USDC` are different currencies, and a rule catches both
 * only when it lists both. A rule's `min_amount` is in units of any currency it lists, compared
 * with the amount as it is (no exchange rate): 10000 USD and 10000 USDC both reach "10000".
 *
 * With `window`, the amount compared is this request's plus those of the same requester's
 * requests to the same payee (`payee.ts`'s destination) that the rule also matches, made within
 * the window and not rejected, cancelled, expired or refused by the provider: one payment split
 * into several under the threshold needs the approvals of the whole.
 */

export interface PolicyRule {
  /** Undefined: every write. */
  operations: ReadonlySet<WriteOperationId> | undefined;
  /** Upper-case codes; undefined: any currency, or none. */
  currencies: ReadonlySet<string> | undefined;
  minAmount: string | undefined;
  /** Earlier requests to the same payee within this span count toward `minAmount`. */
  window: { text: string; ms: number } | undefined;
  /** Distinct approvers: with `steps`, their total. */
  approvals: number;
  /** In order; undefined: any `approvals` approvers of PAYOPS_APPROVERS. */
  steps?: readonly ApprovalStep[] | undefined;
  /** One approver may fill more than one of `steps` (once each); absent: one step each. */
  samePersonMayFillSteps?: true | undefined;
  /** A request over a step's `max_amount`: that step passed over, or refused (undefined). */
  overCap?: OverCap | undefined;
  /**
   * The most each named user, or each member of a named group, may approve of a request this
   * rule matches (in its currencies); a person's cap is the smallest that names them.
   */
  approverLimits?: Readonly<Record<string, string>> | undefined;
  /**
   * What one requester may request within `window` across all payees (this rule's operations and
   * currencies); past `amount`, a request needs `approvals`, or is refused.
   */
  requesterLimit?: RequesterLimit | undefined;
}

export interface RequesterLimit {
  amount: string;
  window: { text: string; ms: number };
  /** Past the amount: this many approvals; undefined: the request is refused (`refuse: true`). */
  approvals: number | undefined;
}

export interface Policy {
  defaultApprovals: number;
  expiryHours: number;
  rules: readonly PolicyRule[];
}

export const MAX_APPROVALS = 5;
export const MAX_EXPIRY_HOURS = 168;

export const DEFAULT_POLICY: Policy = Object.freeze({
  defaultApprovals: 1,
  expiryHours: 24,
  rules: Object.freeze([]),
});

/** The policy file is invalid; `problems` lists each one in plain words, naming its place. */
export class PolicyError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(
      `Policy file ${source} is invalid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'PolicyError';
    this.problems = problems;
  }
}

const WRITE_OPERATIONS: readonly WriteOperationId[] = OPERATION_IDS.filter(isWrite);
/** Rules name writes by id or by /pay word, in any case: `createPayout`, `payout`. */
const WRITE_BY_NAME: ReadonlyMap<string, WriteOperationId> = new Map(
  WRITE_OPERATIONS.flatMap((id) => [
    [id.toLowerCase(), id],
    [OPERATIONS[id].command, id],
  ]),
);

const wholeNumber = (min: number, max: number) =>
  z
    .int({ error: `must be a whole number from ${min} to ${max}` })
    .min(min)
    .max(max);

/** How a rule names its operations: told with every operation it cannot read. */
const NAME_OPERATIONS = 'name operations by id (createPayout) or by command word (payout)';

const operationName = z
  .string({ error: `must ${NAME_OPERATIONS}` })
  .transform((name, ctx): WriteOperationId => {
    const found = WRITE_BY_NAME.get(name.toLowerCase());
    if (found !== undefined) return found;
    const near = WRITE_BY_NAME.get(closest(name, [...WRITE_BY_NAME.keys()]) ?? '');
    const suggestion = near && `${near} (${OPERATIONS[near].command})`;
    const why = Object.hasOwn(OPERATIONS, name)
      ? 'is a read, and reads need no approval'
      : `is not a write operation${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
    ctx.addIssue({
      code: 'custom',
      message: `\`${name}\` ${why}; ${NAME_OPERATIONS}`,
    });
    return z.NEVER;
  });

/** An amount the file names under `key`: a decimal in quotes. */
const amountAt = (key: string) =>
  z.unknown().transform((value, ctx): string => {
    if (typeof value === 'string' && isDecimalString(value)) return value;
    ctx.addIssue({
      code: 'custom',
      message:
        typeof value === 'number'
          ? `must be quoted, like ${key}: "10000" — an unquoted number is read as a binary float, which can silently change it (10000.10 is read as 10000.1, 12345678901234567890 as 12345678901234567000)`
          : 'must be a plain decimal in quotes, like "10000" or "2500.50" (no commas, sign or exponent)',
    });
    return z.NEVER;
  });

const minAmount = amountAt('min_amount');

/** A rule's `currency`: one code or a list of them, kept upper-case. */
const currencies = z.unknown().transform((value, ctx): string[] => {
  const codes: unknown[] = Array.isArray(value) ? value : [value];
  const wrong = codes.find((code) => typeof code !== 'string' || !/^[A-Za-z]{3,6}$/.test(code));
  if (codes.length > 0 && wrong === undefined)
    return codes.map((code) => String(code).toUpperCase());
  ctx.addIssue({
    code: 'custom',
    message:
      codes.length === 0
        ? 'is empty: leave it out to mean any currency'
        : `${typeof wrong === 'string' ? `\`${wrong}\`` : 'a value'} is not a currency code: write one code of 3 to 6 letters, like USD, or a list, like [USD, USDC]`,
  });
  return z.NEVER;
});

const WINDOW_UNITS_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const MAX_WINDOW_MS = 31 * 86_400_000;

const windowSpan = z.unknown().transform((value, ctx) => {
  const match = typeof value === 'string' ? /^(\d{1,6})([mhd])$/.exec(value.trim()) : null;
  const ms = match ? Number(match[1]) * (WINDOW_UNITS_MS[match[2] as string] as number) : 0;
  if (match && ms >= 60_000 && ms <= MAX_WINDOW_MS)
    return { text: `${Number(match[1])}${match[2]}`, ms };
  ctx.addIssue({
    code: 'custom',
    message:
      'must be a span from 1 minute to 31 days in minutes, hours or days, like 30m, 24h or 7d',
  });
  return z.NEVER;
});

const knownKeys = (keys: readonly string[]) => ({
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}; the known keys are ${keys.join(', ')}`
      : undefined,
});

/** Who may fill a step: Slack user group ids (`S…`) and user ids (`U…`, `W…`). */
const stepApprover = z
  .string({ error: 'must be a Slack user group id (S…) or user id (U…)' })
  .regex(/^[SUW][A-Z0-9]{2,}$/, {
    error: 'must be a Slack user group id (S…) or user id (U…), like S0TREASURY or U0CFO',
  });

const stepSchema = z.strictObject(
  {
    approvers: z
      .array(stepApprover, { error: 'must be a list, like [S0TREASURY, U0CFO]' })
      .min(1, { error: 'is empty: a step needs someone who may fill it' }),
    approvals: wholeNumber(1, MAX_APPROVALS).optional(),
    /** The most this step's people may approve, in units of the rule's currencies. */
    max_amount: amountAt('max_amount').optional(),
  },
  knownKeys(['approvers', 'approvals', 'max_amount']),
);

const ruleSchema = z
  .strictObject(
    {
      operations: z
        .array(operationName, { error: 'must be a list, like [createPayout, transfer]' })
        .min(1, { error: 'is empty: leave it out to mean every write' })
        .optional(),
      currency: currencies.optional(),
      min_amount: minAmount.optional(),
      window: windowSpan.optional(),
      requester_limit: z
        .strictObject(
          {
            amount: amountAt('amount'),
            window: windowSpan,
            approvals: wholeNumber(1, MAX_APPROVALS).optional(),
            refuse: z.literal(true, { error: 'must be true, or left out' }).optional(),
          },
          knownKeys(['amount', 'window', 'approvals', 'refuse']),
        )
        .refine((limit) => (limit.approvals === undefined) !== (limit.refuse === undefined), {
          error: 'needs what happens past the amount: approvals: N, or refuse: true (one of them)',
        })
        .optional(),
      approvals: wholeNumber(1, MAX_APPROVALS).optional(),
      steps: z
        .array(stepSchema, { error: 'must be a list of steps, each with approvers' })
        .min(1, { error: 'is empty: leave it out for approvals from PAYOPS_APPROVERS' })
        .optional(),
      same_person_may_fill_steps: z
        .literal(true, { error: 'must be true, or left out (one person counts for one step)' })
        .optional(),
      over_cap: z
        .enum(['next_step', 'refuse'], { error: 'must be next_step or refuse' })
        .optional(),
      approver_limits: z
        .record(stepApprover, amountAt('approver_limits'), {
          error:
            'must be a mapping of Slack ids to amounts, like { U0BOB: "5000", S0TREASURY: "20000" }',
        })
        .refine((limits) => Object.keys(limits).length > 0, {
          error: 'is empty: leave it out for no cap',
        })
        .optional(),
    },
    knownKeys([
      'operations',
      'currency',
      'min_amount',
      'window',
      'approvals',
      'steps',
      'same_person_may_fill_steps',
      'over_cap',
      'approver_limits',
      'requester_limit',
    ]),
  )
  .superRefine((rule, ctx) => {
    if (rule.requester_limit !== undefined && rule.currency === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['requester_limit'],
        message: 'needs a currency: amounts in different currencies cannot be added up',
      });
    }
    if (rule.approver_limits !== undefined && rule.currency === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['approver_limits'],
        message: 'needs a currency: amounts in different currencies cannot be compared',
      });
    }
    if (rule.over_cap !== undefined && !rule.steps?.some((step) => step.max_amount)) {
      ctx.addIssue({
        code: 'custom',
        path: ['over_cap'],
        message: "needs a step with max_amount: it says what happens past a step's cap",
      });
    }
    if (rule.same_person_may_fill_steps !== undefined && rule.steps === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['same_person_may_fill_steps'],
        message: 'needs steps: it lets one person fill more than one step of a chain',
      });
    }
    // A raised count replaces the chain's steps, which would lose who may approve: not allowed.
    if (rule.requester_limit !== undefined && rule.steps !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['requester_limit'],
        message: 'cannot be on a rule with steps: put it on a rule of its own',
      });
    }
    if ((rule.approvals === undefined) === (rule.steps === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [rule.steps === undefined ? 'approvals' : 'steps'],
        message:
          rule.steps === undefined
            ? 'is missing: a rule needs approvals, or steps'
            : 'comes with approvals: write one of them (a chain needs its steps’ total)',
      });
    }
    for (const [index, step] of (rule.steps ?? []).entries()) {
      if (step.max_amount === undefined) continue;
      // A cap compares amounts, which only one currency list makes comparable.
      if (rule.currency === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index, 'max_amount'],
          message:
            'needs the rule to name its currency: amounts in different currencies cannot be compared',
        });
      } else if (
        rule.min_amount !== undefined &&
        compareDecimal(step.max_amount, rule.min_amount) < 0
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index, 'max_amount'],
          message: `is below the rule's min_amount (${rule.min_amount}): this step could approve none of its requests`,
        });
      }
    }
    const total = rule.steps && chainApprovals(stepsOf(rule.steps));
    if (total !== undefined && total > MAX_APPROVALS) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps'],
        message: `need ${total} approvals in all, more than ${MAX_APPROVALS}`,
      });
    }
    // Amounts in different currencies cannot be compared, so a threshold needs its currency.
    if (rule.min_amount !== undefined && rule.currency === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['min_amount'],
        message: 'needs a currency: amounts in different currencies cannot be compared',
      });
    }
    if (rule.window !== undefined && rule.min_amount === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['window'],
        message: 'needs min_amount: a window adds up amounts toward a threshold',
      });
    }
  });

const policySchema = z
  .strictObject(
    {
      default_approvals: wholeNumber(1, MAX_APPROVALS).optional(),
      expiry_hours: wholeNumber(1, MAX_EXPIRY_HOURS).optional(),
      rules: z.array(ruleSchema, { error: 'must be a list of rules' }).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? 'the policy must be a mapping with default_approvals, expiry_hours and rules'
          : knownKeys(['default_approvals', 'expiry_hours', 'rules']).error(issue),
    },
  )
  .superRefine((policy, ctx) => {
    const floor = policy.default_approvals ?? DEFAULT_POLICY.defaultApprovals;
    for (const [index, rule] of (policy.rules ?? []).entries()) {
      // Rules only raise the count; one below the default reads as a lowering that never happens.
      const approvals = rule.approvals ?? chainApprovals(stepsOf(rule.steps ?? []));
      if (approvals < floor) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, rule.approvals === undefined ? 'steps' : 'approvals'],
          message: `${rule.approvals === undefined ? 'need' : 'is'} ${approvals}, below default_approvals (${floor}): a rule can only raise the number of approvals, never lower it`,
        });
      }
    }
  });

/** A rule's steps with their defaults written in. */
function stepsOf(
  steps: ReadonlyArray<{
    approvers: string[];
    approvals?: number | undefined;
    max_amount?: string | undefined;
  }>,
): ApprovalStep[] {
  return steps.map((step) => ({
    approvers: step.approvers,
    approvals: step.approvals ?? 1,
    ...(step.max_amount !== undefined && { maxAmount: step.max_amount }),
  }));
}

/** `rules[0].min_amount`: where a problem is, as it would be written in the file. */
function placeOf(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`,
    )
    .join('');
}

/** The policy `text` says; `source` (the file's path) names it in problems. */
export function parsePolicy(text: string, source: string): Policy {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first line says what and where ("… at line 3, column 5:"); the rest is a code excerpt.
    throw new PolicyError(
      source,
      document.errors.map(
        (error) => `not valid YAML or JSON: ${error.message.split('\n')[0]?.replace(/:$/, '')}`,
      ),
    );
  }
  const value: unknown = document.toJS();
  // An empty file is more likely a failed mount than a wish for defaults: fail closed.
  if (value === null || value === undefined) {
    throw new PolicyError(source, [
      'the file is empty: write at least `rules: []`, or unset PAYOPS_POLICY_FILE for the defaults',
    ]);
  }
  const result = policySchema.safeParse(value);
  if (!result.success) {
    throw new PolicyError(
      source,
      result.error.issues.map((issue) =>
        issue.path.length > 0 ? `${placeOf(issue.path)}: ${issue.message}` : issue.message,
      ),
    );
  }
  const parsed = result.data;
  return Object.freeze({
    defaultApprovals: parsed.default_approvals ?? DEFAULT_POLICY.defaultApprovals,
    expiryHours: parsed.expiry_hours ?? DEFAULT_POLICY.expiryHours,
    rules: Object.freeze(
      (parsed.rules ?? []).map((rule) => {
        const steps = rule.steps && Object.freeze(stepsOf(rule.steps));
        return Object.freeze({
          operations: rule.operations && new Set(rule.operations),
          currencies: rule.currency && new Set(rule.currency),
          minAmount: rule.min_amount,
          window: rule.window,
          approvals: rule.approvals ?? chainApprovals(steps ?? []),
          steps,
          ...(rule.same_person_may_fill_steps && { samePersonMayFillSteps: true as const }),
          ...(rule.approver_limits && { approverLimits: Object.freeze(rule.approver_limits) }),
          ...(rule.over_cap === 'next_step' && { overCap: 'next_step' as const }),
          requesterLimit: rule.requester_limit && {
            amount: rule.requester_limit.amount,
            window: rule.requester_limit.window,
            approvals: rule.requester_limit.approvals,
          },
        });
      }),
    ),
  });
}

/** An earlier request of the same requester to the same payee, as a rule's window sees it. */
export type EarlierRequest = Pick<PaymentRequest, 'operationId' | 'body' | 'createdAt'>;

/** What the windows of a request's rules count: earlier requests, and the time it is now. */
export interface RecentRequests {
  earlier: readonly EarlierRequest[];
  now: Date;
  /** The same requester's requests to any payee, since `requesterLimitStart`. */
  byRequester?: readonly EarlierRequest[] | undefined;
}

export interface Requirement {
  /** Distinct approvers the request needs. */
  approvals: number;
  windowRaised: WindowRaise | undefined;
  /** A requester limit the request went past, which raised the count. */
  limitRaised?: LimitRaise | undefined;
  /** A requester limit the request went past that refuses it: it must not be stored. */
  limitRefused?: LimitRaise | undefined;
  /** The step of the deciding rule's chain whose cap refuses the request: not stored either. */
  stepRefused?: (StepCapRefusal & { rule: number; currency: string }) | undefined;
  /** The steps of the rule that decided it, if that rule has steps (its policy version aside). */
  chain: Omit<ApprovalChain, 'policyVersion'> | undefined;
}

const NOTHING_EARLIER: RecentRequests = { earlier: [], now: new Date(0) };

/** A write's currency (upper-case) and amount, as the policy and the hold see them. */
export function moneyOf(fields: Readonly<Record<string, string>>): {
  currency: string | undefined;
  amount: string | undefined;
} {
  return {
    currency: (fields.currency ?? fields.source_currency)?.toUpperCase(),
    amount: fields.amount,
  };
}

/** Whether the rule names this operation and currency, the amount aside. */
function ruleCovers(
  rule: PolicyRule,
  operationId: WriteOperationId,
  currency: string | undefined,
): boolean {
  if (rule.operations !== undefined && !rule.operations.has(operationId)) return false;
  return rule.currencies === undefined || (currency !== undefined && rule.currencies.has(currency));
}

/** The amounts added up, or undefined when one is not a decimal. */
function sumOf(amounts: readonly string[]): string | undefined {
  return amounts.every(isDecimalString) ? amounts.reduce(addDecimal) : undefined;
}

function reaches(sum: string | undefined, minAmount: string): boolean {
  // Validated intents always hold decimals; anything else fails closed (the rule applies).
  return sum === undefined || compareDecimal(sum, minAmount) >= 0;
}

/** The amounts of the earlier requests that the rule's window counts. */
function windowAmounts(rule: PolicyRule, recent: RecentRequests): string[] {
  if (rule.window === undefined) return [];
  return spanAmounts(rule, rule.window.ms, recent.earlier, recent.now);
}

/** The amounts of `requests` made within `ms` before `now` that the rule covers. */
function spanAmounts(
  rule: PolicyRule,
  ms: number,
  requests: readonly EarlierRequest[],
  now: Date,
): string[] {
  const from = now.getTime() - ms;
  return requests.flatMap((earlier) => {
    const { currency, amount } = moneyOf(fieldsOf(earlier));
    const within = Date.parse(earlier.createdAt) >= from;
    return within && amount !== undefined && ruleCovers(rule, earlier.operationId, currency)
      ? [amount]
      : [];
  });
}

/** Whether `rule` asks more than `needed`: more approvals, or as many from a chain's steps. */
function stricter(rule: PolicyRule, needed: Requirement): boolean {
  return (
    rule.approvals > needed.approvals ||
    (rule.approvals === needed.approvals && rule.steps !== undefined && needed.chain === undefined)
  );
}

/**
 * Distinct approvers a request needs: the largest of the default and every matching rule, a
 * rule with a window counting `recent`'s earlier requests to the same payee with this one. The
 * rule that decides it gives its chain, if it has steps.
 */
export function requiredApprovals(
  policy: Policy,
  intent: WriteIntent,
  recent: RecentRequests = NOTHING_EARLIER,
): Requirement {
  const { currency, amount } = moneyOf(intent.fields);
  const covering = policy.rules.flatMap((rule, index) =>
    ruleCovers(rule, intent.operationId, currency) ? [{ rule, index }] : [],
  );
  const chainOf = (rule: PolicyRule, index: number): Requirement['chain'] =>
    rule.steps && {
      rule: index,
      steps: rule.steps,
      ...(rule.samePersonMayFillSteps && { samePersonMayFillSteps: true as const }),
    };
  let needed: Requirement = {
    approvals: policy.defaultApprovals,
    windowRaised: undefined,
    chain: undefined,
  };
  for (const { rule, index } of covering) {
    const applies =
      rule.minAmount === undefined ||
      (amount !== undefined && reaches(sumOf([amount]), rule.minAmount));
    if (applies && stricter(rule, needed)) {
      needed = { approvals: rule.approvals, windowRaised: undefined, chain: chainOf(rule, index) };
    }
  }
  if (amount === undefined) return needed;
  let refused: LimitRaise | undefined;
  for (const { rule } of covering) {
    const limit = rule.requesterLimit;
    if (!limit || (limit.approvals !== undefined && limit.approvals <= needed.approvals)) continue;
    const earlier = spanAmounts(rule, limit.window.ms, recent.byRequester ?? [], recent.now);
    const total = sumOf([amount, ...earlier]);
    // Up to the amount is within the limit; a sum that is not a number is over (fail closed).
    if (total !== undefined && compareDecimal(total, limit.amount) <= 0) continue;
    const over = {
      window: limit.window.text,
      total: total ?? 'not a number',
      currencies: [...(rule.currencies ?? [])],
      limit: limit.amount,
      requests: earlier.length,
    };
    if (limit.approvals === undefined) {
      refused ??= over;
      continue;
    }
    needed = {
      approvals: limit.approvals,
      chain: undefined,
      windowRaised: needed.windowRaised,
      limitRaised: over,
    };
  }
  for (const { rule, index } of covering) {
    if (!rule.window || !rule.minAmount || !stricter(rule, needed)) continue;
    const earlier = windowAmounts(rule, recent);
    const total = sumOf([amount, ...earlier]);
    if (earlier.length === 0 || !reaches(total, rule.minAmount)) continue;
    needed = {
      approvals: rule.approvals,
      chain: chainOf(rule, index),
      limitRaised: undefined,
      windowRaised: {
        window: rule.window.text,
        total: total ?? 'not a number',
        currencies: [...(rule.currencies ?? [])],
        threshold: rule.minAmount,
        requests: earlier.length,
      },
    };
  }
  const capped = withinCaps(policy, needed, amount, currency);
  return refused ? { ...capped, limitRefused: refused } : capped;
}

/**
 * The requirement with its chain cut to the steps whose `max_amount` the amount is within (the
 * rule's `over_cap: next_step`), or refused by a step. A cut chain needs its steps' total, and
 * is refused too below `default_approvals`: a cap never lowers the floor.
 */
function withinCaps(
  policy: Policy,
  needed: Requirement,
  amount: string,
  currency: string | undefined,
): Requirement {
  const { chain } = needed;
  if (!chain) return needed;
  const overCap = policy.rules[chain.rule]?.overCap ?? 'refuse';
  const kept = stepsWithin(chain.steps, overCap, amount);
  const refuse = (refused: StepCapRefusal) => ({
    ...needed,
    stepRefused: { ...refused, rule: chain.rule, currency: currency ?? '' },
  });
  if ('refused' in kept) return refuse(kept.refused);
  const approvals = chainApprovals(kept.steps);
  if (approvals === needed.approvals) return needed;
  if (approvals < policy.defaultApprovals) {
    const last = chain.steps.findLastIndex((step) => !kept.steps.includes(step));
    const step = chain.steps[last] as ApprovalStep;
    return refuse({ step: last + 1, limit: step.maxAmount as string, amount });
  }
  return { ...needed, approvals, chain: { ...chain, steps: kept.steps } };
}

/** A cap of one user, or of each member of one group, on what they may approve. */
export interface ApproverCap {
  /** The user (`U…`) or group (`S…`) the policy names. */
  approver: string;
  limit: string;
}

/**
 * The caps the policy's matching rules put on approvers of a request with `fields` (each rule
 * that names its operation and currency and whose `min_amount` its amount reaches).
 */
export function approverCaps(
  policy: Policy,
  operationId: WriteOperationId,
  fields: Readonly<Record<string, string>>,
): ApproverCap[] {
  const { currency, amount } = moneyOf(fields);
  return policy.rules.flatMap((rule) => {
    if (!rule.approverLimits || !ruleCovers(rule, operationId, currency)) return [];
    const applies =
      rule.minAmount === undefined ||
      (amount !== undefined && reaches(sumOf([amount]), rule.minAmount));
    return applies
      ? Object.entries(rule.approverLimits).map(([approver, limit]) => ({ approver, limit }))
      : [];
  });
}

/**
 * Why an approver whose caps are `caps` (those naming them) may not approve a request with
 * `fields`, or undefined: the smallest cap is below its amount (an amount that is not a decimal
 * is over any cap: fail closed).
 */
export function approverCapRefusal(
  caps: readonly ApproverCap[],
  fields: Readonly<Record<string, string>>,
): Refusal | undefined {
  const smallest = caps.reduce<ApproverCap | undefined>(
    (low, cap) => (low === undefined || compareDecimal(cap.limit, low.limit) < 0 ? cap : low),
    undefined,
  );
  if (smallest === undefined) return undefined;
  const { amount, currency } = moneyOf(fields);
  const within =
    amount !== undefined && isDecimalString(amount) && compareDecimal(amount, smallest.limit) <= 0;
  return within
    ? undefined
    : {
        code: 'over_approval_limit',
        approver: smallest.approver,
        limit: smallest.limit,
        amount: amount ?? '',
        currency: currency ?? '',
      };
}

/**
 * Since when a requester's earlier requests to any payee may count toward a requester limit (the
 * longest limit window of the rules that name its operation and currency), or undefined.
 */
export function requesterLimitStart(
  policy: Policy,
  intent: WriteIntent,
  now: Date,
): Date | undefined {
  const { currency } = moneyOf(intent.fields);
  const longest = Math.max(
    0,
    ...policy.rules
      .filter((rule) => ruleCovers(rule, intent.operationId, currency))
      .map((rule) => rule.requesterLimit?.window.ms ?? 0),
  );
  return longest > 0 ? new Date(now.getTime() - longest) : undefined;
}

/**
 * Since when a request's earlier requests to the same payee may count (the longest window of
 * the rules that name its operation and currency), or undefined when no such rule has one.
 */
export function windowStart(policy: Policy, intent: WriteIntent, now: Date): Date | undefined {
  const { currency } = moneyOf(intent.fields);
  const longest = Math.max(
    0,
    ...policy.rules
      .filter((rule) => ruleCovers(rule, intent.operationId, currency))
      .map((rule) => rule.window?.ms ?? 0),
  );
  return longest > 0 ? new Date(now.getTime() - longest) : undefined;
}

export function expiryMs(policy: Policy): number {
  return policy.expiryHours * 3_600_000;
}

/**
 * Who can approve, as counted at start-up: the users `PAYOPS_APPROVERS` lists and the members of
 * the groups it lists that Slack could name.
 */
export interface ApproverSupply {
  approvers: number;
  /**
   * An approver may also request (or Slack could not say): their own requests have one
   * approver fewer, since nobody approves their own request.
   */
  approverMayRequest: boolean;
  /** Groups whose members Slack could not list: not counted, so the supply may be larger. */
  unlisted: readonly string[];
  /** The members of the groups the policy's steps name, as listed; a group unlisted is absent. */
  stepGroups?: ReadonlyMap<string, readonly string[]> | undefined;
  /** Who may request, when Slack could list them all: one of them is counted out of a step. */
  requesters?: ReadonlySet<string> | undefined;
}

/** The group ids the policy's steps name, each once: start-up lists their members. */
export function stepGroupIds(policy: Policy): string[] {
  const ids = policy.rules.flatMap((rule) =>
    (rule.steps ?? []).flatMap((step) => step.approvers.filter((id) => id.startsWith('S'))),
  );
  return [...new Set(ids)];
}

/**
 * Why a rule's chain cannot be filled, or undefined: a step with fewer people than its count,
 * or the steps together fewer than their total (one person counts for one step), the requester
 * counted out when they may be among them.
 */
const STEP_REMEDY =
  "Add people to the step's groups or users, or lower its approvals in PAYOPS_POLICY_FILE.";

/** Why the policy cannot be met: what is short, whether for sure, and what to do about it. */
export interface Shortage {
  message: string;
  certain: boolean;
  /** What to change, when not PAYOPS_APPROVERS. */
  remedy?: string | undefined;
}

function chainShortage(
  rule: PolicyRule,
  index: number,
  supply: ApproverSupply,
): Shortage | undefined {
  const unlisted = new Set<string>();
  const peopleOf = (approvers: readonly string[]) => {
    const people = new Set(approvers.filter((id) => !id.startsWith('S')));
    for (const id of approvers.filter((group) => group.startsWith('S'))) {
      const members = supply.stepGroups?.get(id);
      if (members === undefined) unlisted.add(id);
      for (const member of members ?? []) people.add(member);
    }
    return people;
  };
  /** How many of `people` can approve one request, and in words. */
  const available = (people: ReadonlySet<string>) => {
    const mayRequest =
      supply.requesters === undefined || [...people].some((user) => supply.requesters?.has(user));
    const count = Math.max(0, people.size - (mayRequest ? 1 : 0));
    const who = `${count} ${count === 1 ? 'person' : 'people'}`;
    return {
      count,
      words: mayRequest ? `${who}, one counted out as its requester may be among them` : who,
    };
  };
  const steps = rule.steps ?? [];
  const short = steps.flatMap((step, number) => {
    const can = available(peopleOf(step.approvers));
    return can.count < step.approvals
      ? [
          `step ${number + 1} (${step.approvers.join(', ')}) needs ${plural(step.approvals, 'approval')} but has ${can.words}`,
        ]
      : [];
  });
  const all = available(peopleOf(steps.flatMap((step) => step.approvers)));
  // One person counts for one step, unless the rule says otherwise: the steps together need as
  // many distinct people.
  if (short.length === 0 && !rule.samePersonMayFillSteps && all.count < rule.approvals) {
    short.push(
      `its steps need ${plural(rule.approvals, 'approval')} from distinct people but have ${all.words}`,
    );
  }
  if (short.length === 0) return undefined;
  const why =
    unlisted.size > 0
      ? `; the members of ${[...unlisted].join(', ')} were not counted, as Slack could not list them`
      : '';
  return {
    message: `the policy's rules[${index}]: ${short.join('; ')}${why}`,
    certain: unlisted.size === 0,
    remedy: STEP_REMEDY,
  };
}

/**
 * Why the policy asks more distinct approvers than there are, or undefined. `certain` is false
 * when groups Slack could not list might make up the difference.
 */
export function approverShortage(policy: Policy, supply: ApproverSupply): Shortage | undefined {
  const chains = policy.rules.flatMap((rule, index) =>
    rule.steps ? [chainShortage(rule, index, supply)].filter((found) => found !== undefined) : [],
  );
  // A certain shortage first: it alone stops the start.
  const chain = chains.find((found) => found.certain) ?? chains[0];
  if (chain) return chain;
  const [needed, place] = policy.rules.reduce<[number, string]>(
    (highest, rule, index) =>
      !rule.steps && rule.approvals > highest[0] ? [rule.approvals, `rules[${index}]`] : highest,
    [policy.defaultApprovals, 'default_approvals'],
  );
  const available = Math.max(0, supply.approvers - (supply.approverMayRequest ? 1 : 0));
  if (needed <= available) return undefined;
  const counted = supply.approverMayRequest
    ? `${plural(supply.approvers, 'approver')}, one fewer on a request made by an approver, who cannot approve their own`
    : plural(supply.approvers, 'approver');
  const unlisted =
    supply.unlisted.length > 0
      ? `; the members of ${supply.unlisted.join(', ')} were not counted, as Slack could not list them`
      : '';
  return {
    message: `the policy's ${place} needs ${plural(needed, 'approval')} from distinct people, but PAYOPS_APPROVERS can supply ${available} (${counted})${unlisted}`,
    certain: supply.unlisted.length === 0,
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The policy can never be met by the approvers there are: payops does not start. */
export class ApproverShortageError extends Error {
  constructor(
    shortage: string,
    remedy = 'Add approvers to PAYOPS_APPROVERS, or lower the rule in PAYOPS_POLICY_FILE.',
  ) {
    super(`payops refused to start: ${shortage}. ${remedy}`);
    this.name = 'ApproverShortageError';
  }
}

/**
 * Why a click on *Approve* must not count, or undefined when it may. Whether the clicker is an
 * approver at all is checked elsewhere, against the live approver list.
 */
export function approvalRefusal(
  request: Pick<PaymentRequest, 'requesterId' | 'status' | 'approvals' | 'expiresAt' | 'chain'>,
  approverId: string,
  now: Date,
): Refusal | undefined {
  if (request.status !== 'pending') return { code: 'not_pending', status: request.status };
  // An unreadable expiry counts as expired: never approve what might be stale.
  const expiresAt = Date.parse(request.expiresAt);
  if (!(now.getTime() < expiresAt)) return { code: 'expired' };
  if (request.requesterId === approverId) return { code: 'own_request' };
  const { chain, approvals } = request;
  // Once per request, or once per step when the chain lets one person fill several.
  if (alreadyCounted(chain, approvals, approverId, chain && openStep(chain, approvals))) {
    return { code: 'already_approved' };
  }
  return undefined;
}

/**
 * The step an approval fills: the open one, if `memberOf` (whether the approver is among a
 * step's people, read at the click; undefined when Slack could not tell) says so; else why it
 * does not count.
 */
export function stepFor(
  request: Pick<PaymentRequest, 'body' | 'approvals'> & { chain: ApprovalChain },
  memberOf: (step: number) => boolean | undefined,
): { step: number } | { refusal: Refusal } {
  const { chain } = request;
  const open = openStep(chain, request.approvals);
  // A complete chain takes no more approvals; the request has left `pending` by then.
  if (open === undefined) return { refusal: { code: 'already_approved' } };
  const member = memberOf(open);
  if (member === undefined) return { refusal: { code: 'approvers_unconfirmed' } };
  const waiting = chain.steps[open] as ApprovalStep;
  if (member) {
    const { amount, currency } = moneyOf(fieldsOf(request));
    // An amount that is not a decimal is over any cap: fail closed.
    const over =
      waiting.maxAmount !== undefined &&
      (amount === undefined ||
        !isDecimalString(amount) ||
        compareDecimal(amount, waiting.maxAmount) > 0);
    if (!over) return { step: open };
    return {
      refusal: {
        code: 'over_approval_limit',
        step: open + 1,
        limit: waiting.maxAmount as string,
        amount: amount ?? '',
        currency: currency ?? '',
      },
    };
  }
  return {
    refusal: {
      code: 'not_in_open_step',
      step: open + 1,
      steps: chain.steps.length,
      approvers: [...waiting.approvers],
      ...(chain.samePersonMayFillSteps && { samePersonMayFillSteps: true as const }),
    },
  };
}
