import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import type { PaymentRequest, RequestStatus, WriteIntent } from './approval.ts';
import { closest } from './commands.ts';
import { compareDecimal, isDecimalString } from './decimal.ts';
import { isWrite, OPERATION_IDS, OPERATIONS, type WriteOperationId } from './operations.ts';

/**
 * How many distinct people must approve a write, and how long a request may wait. Read from
 * the optional policy file `PAYOPS_POLICY_FILE` (YAML, or JSON, which YAML reads too):
 *
 * ```yaml
 * default_approvals: 1          # optional, default 1, 1..5
 * expiry_hours: 24              # optional, default 24, 1..168
 * rules:                        # optional
 *   - operations: [createPayout, createTransfer]   # operation ids or /pay words; omitted = all writes
 *     currency: USD             # optional; compared case-insensitively with the request's currency
 *     min_amount: "10000"       # optional, quoted; the rule applies when amount >= min_amount
 *     approvals: 2              # 1..5
 * ```
 *
 * A request needs the largest number among the default and every rule that matches it, so a
 * rule can only raise the count. The request's currency is its `currency` field (payouts) or
 * else its `source_currency` (what leaves the wallet); its amount is its `amount` field.
 */

export interface PolicyRule {
  /** Undefined: every write. */
  operations: ReadonlySet<WriteOperationId> | undefined;
  currency: string | undefined;
  minAmount: string | undefined;
  approvals: number;
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

const operationName = z
  .string({ error: 'must name operations by id (createPayout) or by /pay word (payout)' })
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
      message: `\`${name}\` ${why}; name operations by id (createPayout) or by /pay word (payout)`,
    });
    return z.NEVER;
  });

const minAmount = z.unknown().transform((value, ctx): string => {
  if (typeof value === 'string' && isDecimalString(value)) return value;
  ctx.addIssue({
    code: 'custom',
    message:
      typeof value === 'number'
        ? 'must be quoted, like min_amount: "10000" — an unquoted number is read as a binary float, which can silently change it (10000.10 is read as 10000.1, 12345678901234567890 as 12345678901234567000)'
        : 'must be a plain decimal in quotes, like "10000" or "2500.50" (no commas, sign or exponent)',
  });
  return z.NEVER;
});

const knownKeys = (keys: readonly string[]) => ({
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}; the known keys are ${keys.join(', ')}`
      : undefined,
});

const ruleSchema = z
  .strictObject(
    {
      operations: z
        .array(operationName, { error: 'must be a list, like [createPayout, transfer]' })
        .min(1, { error: 'is empty: leave it out to mean every write' })
        .optional(),
      currency: z
        .string({ error: 'must be a currency code like USD' })
        .regex(/^[A-Za-z]{3,6}$/, { error: 'must be a currency code of 3 to 6 letters, like USD' })
        .optional(),
      min_amount: minAmount.optional(),
      approvals: wholeNumber(1, MAX_APPROVALS),
    },
    knownKeys(['operations', 'currency', 'min_amount', 'approvals']),
  )
  .superRefine((rule, ctx) => {
    // Amounts in different currencies cannot be compared, so a threshold needs its currency.
    if (rule.min_amount !== undefined && rule.currency === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['min_amount'],
        message: 'needs a currency: amounts in different currencies cannot be compared',
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
      if (rule.approvals < floor) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'approvals'],
          message: `is ${rule.approvals}, below default_approvals (${floor}): a rule can only raise the number of approvals, never lower it`,
        });
      }
    }
  });

/** `rules[0].min_amount`: where a problem is, as it would be written in the file. */
function placeOf(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`,
    )
    .join('');
}

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
      (parsed.rules ?? []).map((rule) =>
        Object.freeze({
          operations: rule.operations && new Set(rule.operations),
          currency: rule.currency,
          minAmount: rule.min_amount,
          approvals: rule.approvals,
        }),
      ),
    ),
  });
}

/** The policy in `path`, or the defaults when no file is configured. */
export function loadPolicy(path: string | undefined): Policy {
  if (path === undefined || path.trim() === '') return DEFAULT_POLICY;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new PolicyError(path, [`PAYOPS_POLICY_FILE cannot be read (${code})`]);
  }
  return parsePolicy(text, path);
}

/** The request's currency and amount, as the policy sees them. */
function moneyOf(intent: WriteIntent): {
  currency: string | undefined;
  amount: string | undefined;
} {
  return {
    currency: intent.fields.currency ?? intent.fields.source_currency,
    amount: intent.fields.amount,
  };
}

function ruleMatches(rule: PolicyRule, intent: WriteIntent): boolean {
  if (rule.operations !== undefined && !rule.operations.has(intent.operationId)) return false;
  const { currency, amount } = moneyOf(intent);
  if (rule.currency !== undefined) {
    if (currency === undefined || currency.toUpperCase() !== rule.currency.toUpperCase()) {
      return false;
    }
  }
  if (rule.minAmount !== undefined) {
    if (amount === undefined) return false;
    // Validated intents always hold a decimal; anything else fails closed (the rule applies).
    if (isDecimalString(amount) && compareDecimal(amount, rule.minAmount) < 0) return false;
  }
  return true;
}

/** Distinct approvers a request needs: the largest of the default and every matching rule. */
export function requiredApprovals(policy: Policy, intent: WriteIntent): number {
  return policy.rules
    .filter((rule) => ruleMatches(rule, intent))
    .reduce((needed, rule) => Math.max(needed, rule.approvals), policy.defaultApprovals);
}

export function expiryMs(policy: Policy): number {
  return policy.expiryHours * 3_600_000;
}

const NOT_PENDING: Readonly<Record<Exclude<RequestStatus, 'pending'>, string>> = {
  executing: 'is already approved and being executed',
  submitted: 'was already approved and submitted',
  failed: 'was already approved, and the provider refused it',
  unknown: 'was already approved and executed, with an unknown outcome',
  rejected: 'was rejected',
  cancelled: 'was cancelled',
  expired: 'has expired',
};

/**
 * Why a click on *Approve* must not count, or undefined when it may. Whether the clicker is an
 * approver at all is checked elsewhere, against the live approver list.
 */
export function approvalRefusal(
  request: Pick<PaymentRequest, 'requesterId' | 'status' | 'approvals' | 'expiresAt'>,
  approverId: string,
  now: Date,
): string | undefined {
  if (request.status !== 'pending') {
    return `This request ${NOT_PENDING[request.status]}, so it can no longer be approved.`;
  }
  // An unreadable expiry counts as expired: never approve what might be stale.
  const expiresAt = Date.parse(request.expiresAt);
  if (!(now.getTime() < expiresAt)) {
    return 'This request has expired, so it can no longer be approved: ask for a new request.';
  }
  if (request.requesterId === approverId) {
    return 'You requested this, so you cannot approve it: a second person must.';
  }
  if (request.approvals.some((approval) => approval.userId === approverId)) {
    return "You have already approved this request; one person's approval counts once.";
  }
  return undefined;
}
