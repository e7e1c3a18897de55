import { createHash } from 'node:crypto';
import { z } from 'zod';
import { compareDecimal, plainDecimal } from './decimal.ts';
import { isWrite, OPERATION_IDS, type WriteOperationId } from './operations.ts';
import type { Policy, PolicyRule } from './policy.ts';

/**
 * The policy as one canonical value, and its SHA-256: the *policy version*. Two files that mean
 * the same rules have the same version, whatever their whitespace, comments, key order, rule
 * order, spelling of operations (`payout` or `createPayout`), currency case, decimals (`10000.00`
 * is `10000`), window units (`24h` is `1d`) or repeated rules; the defaults a file leaves out are
 * written in. Recorded in the audit chain at every start (src/app/policy-audit.ts).
 */

/** A rule as the canonical form writes it: the policy file's own keys, nothing left implicit. */
export interface CanonicalRule {
  /** Write operation ids, sorted; `all`: every write, present and future. */
  operations: readonly WriteOperationId[] | 'all';
  /** Upper-case codes, sorted; `any`: whatever the currency, or none. */
  currency: readonly string[] | 'any';
  /** The shortest plain decimal; null: any amount. */
  min_amount: string | null;
  /** The span in its largest whole unit (`1d`, `36h`, `90m`); null: this request alone. */
  window: string | null;
  approvals: number;
  /**
   * A chain's steps in order, each step's approvers sorted; absent for a rule without steps, so
   * a policy without chains keeps the version it had before steps existed.
   */
  steps?: readonly CanonicalStep[] | undefined;
  /** Only when true, so a chain without it keeps its version: one person may fill several steps. */
  same_person_may_fill_steps?: true | undefined;
  /** Only when `next_step`: `refuse`, the default, is left out so existing versions hold. */
  over_cap?: 'next_step' | undefined;
  /** Each named user's or group's cap, the shortest plain decimal; absent: no caps. */
  approver_limits?: Readonly<Record<string, string>> | undefined;
  /** What one requester may request in a window across payees; absent: no limit. */
  requester_limit?:
    | { amount: string; window: string; approvals?: number | undefined; refuse?: true | undefined }
    | undefined;
}

export interface CanonicalStep {
  approvers: readonly string[];
  approvals: number;
  /** The shortest plain decimal; absent: no cap. */
  max_amount?: string | undefined;
}

export interface CanonicalPolicy {
  default_approvals: number;
  expiry_hours: number;
  /** Sorted, each rule once. */
  rules: readonly CanonicalRule[];
}

const UNITS: ReadonlyArray<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
];

function windowText(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['m', 60_000];
  return `${ms / size}${unit}`;
}

function windowMs(text: string | null): number {
  if (text === null) return 0;
  const size = UNITS.find(([unit]) => text.endsWith(unit))?.[1] ?? 0;
  return Number.parseInt(text, 10) * size;
}

function canonicalRule(rule: PolicyRule): CanonicalRule {
  return {
    operations: rule.operations ? [...rule.operations].sort() : 'all',
    currency: rule.currencies ? [...rule.currencies].sort() : 'any',
    min_amount: rule.minAmount === undefined ? null : (plainDecimal(rule.minAmount) ?? null),
    window: rule.window ? windowText(rule.window.ms) : null,
    approvals: rule.approvals,
    ...(rule.requesterLimit && {
      requester_limit: {
        amount: plainDecimal(rule.requesterLimit.amount) ?? rule.requesterLimit.amount,
        window: windowText(rule.requesterLimit.window.ms),
        ...(rule.requesterLimit.approvals === undefined
          ? { refuse: true as const }
          : { approvals: rule.requesterLimit.approvals }),
      },
    }),
    ...(rule.steps && {
      steps: rule.steps.map((step) => ({
        approvers: [...new Set(step.approvers)].sort(),
        approvals: step.approvals,
        ...(step.maxAmount !== undefined && {
          max_amount: plainDecimal(step.maxAmount) ?? step.maxAmount,
        }),
      })),
    }),
    ...(rule.samePersonMayFillSteps && { same_person_may_fill_steps: true as const }),
    ...(rule.overCap === 'next_step' && { over_cap: 'next_step' as const }),
    ...(rule.approverLimits && {
      approver_limits: Object.fromEntries(
        Object.entries(rule.approverLimits).map(([who, limit]) => [
          who,
          plainDecimal(limit) ?? limit,
        ]),
      ),
    }),
  };
}

const listText = (value: readonly string[] | string) =>
  typeof value === 'string' ? value : value.join(',');

/** The scope of a rule: the operations and currencies it names, whatever it asks of them. */
function scopeOf(rule: CanonicalRule): string {
  return `${listText(rule.operations)} ${listText(rule.currency)}`;
}

/** One order for rules: by scope, then threshold, window and count. */
function compareRules(a: CanonicalRule, b: CanonicalRule): number {
  // Code units, not a locale's collation: the version must not depend on the host's ICU.
  const [left, right] = [scopeOf(a), scopeOf(b)];
  if (left !== right) return left < right ? -1 : 1;
  if (a.min_amount !== b.min_amount) {
    if (a.min_amount === null) return -1;
    if (b.min_amount === null) return 1;
    return compareDecimal(a.min_amount, b.min_amount);
  }
  if (windowMs(a.window) !== windowMs(b.window) || a.approvals !== b.approvals) {
    return windowMs(a.window) - windowMs(b.window) || a.approvals - b.approvals;
  }
  const [leftSteps, rightSteps] = [
    canonicalJson([
      a.steps,
      a.requester_limit,
      a.same_person_may_fill_steps,
      a.approver_limits,
      a.over_cap,
    ]),
    canonicalJson([
      b.steps,
      b.requester_limit,
      b.same_person_may_fill_steps,
      b.approver_limits,
      b.over_cap,
    ]),
  ];
  return leftSteps === rightSteps ? 0 : leftSteps < rightSteps ? -1 : 1;
}

export function canonicalPolicy(policy: Policy): CanonicalPolicy {
  const rules = new Map<string, CanonicalRule>();
  for (const rule of policy.rules.map(canonicalRule)) rules.set(canonicalJson(rule), rule);
  return {
    default_approvals: policy.defaultApprovals,
    expiry_hours: policy.expiryHours,
    rules: [...rules.values()].sort(compareRules),
  };
}

/** JSON with every object's keys sorted and no spaces: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hex SHA-256 of a canonical policy's canonical JSON. */
export function canonicalVersion(canonical: CanonicalPolicy): string {
  return createHash('sha256').update(canonicalJson(canonical)).digest('hex');
}

/** The policy version: what approvals will be sealed with, and the audit chain records. */
export function policyVersion(policy: Policy): string {
  return canonicalVersion(canonicalPolicy(policy));
}

const WRITE_IDS = OPERATION_IDS.filter(isWrite) as [WriteOperationId, ...WriteOperationId[]];

const canonicalSchema = z.object({
  default_approvals: z.int().positive(),
  expiry_hours: z.int().positive(),
  rules: z.array(
    z.object({
      operations: z.union([z.literal('all'), z.array(z.enum(WRITE_IDS))]),
      currency: z.union([z.literal('any'), z.array(z.string())]),
      min_amount: z.string().nullable(),
      window: z.string().nullable(),
      approvals: z.int().positive(),
      steps: z
        .array(
          z.object({
            approvers: z.array(z.string()),
            approvals: z.int().positive(),
            max_amount: z.string().optional(),
          }),
        )
        .optional(),
      same_person_may_fill_steps: z.literal(true).optional(),
      over_cap: z.literal('next_step').optional(),
      approver_limits: z.record(z.string(), z.string()).optional(),
      requester_limit: z
        .object({
          amount: z.string(),
          window: z.string(),
          approvals: z.int().positive().optional(),
          refuse: z.literal(true).optional(),
        })
        .optional(),
    }),
  ),
});

/** A canonical policy as stored (an audit row's detail), or undefined when it is not one. */
export function readCanonicalPolicy(value: unknown): CanonicalPolicy | undefined {
  const parsed = canonicalSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** What changed from one policy to the next, rule by rule. */
export interface PolicyDiff {
  settings: Array<{
    setting: 'default_approvals' | 'expiry_hours';
    before: number;
    after: number;
  }>;
  added: CanonicalRule[];
  removed: CanonicalRule[];
  /** A rule of the same operations and currencies whose threshold, window, count or steps changed. */
  changed: Array<{ before: CanonicalRule; after: CanonicalRule }>;
}

export function diffPolicies(before: CanonicalPolicy, after: CanonicalPolicy): PolicyDiff {
  const settings = (['default_approvals', 'expiry_hours'] as const)
    .filter((setting) => before[setting] !== after[setting])
    .map((setting) => ({ setting, before: before[setting], after: after[setting] }));
  const kept = new Set(after.rules.map((rule) => canonicalJson(rule)));
  const unkept = new Set(before.rules.map((rule) => canonicalJson(rule)));
  const removed = before.rules.filter((rule) => !kept.has(canonicalJson(rule)));
  const added = after.rules.filter((rule) => !unkept.has(canonicalJson(rule)));
  // Rules of one scope pair up in order (tiers stay tiers); what is left over came or went.
  const changed: PolicyDiff['changed'] = [];
  for (const old of [...removed]) {
    const index = added.findIndex((rule) => scopeOf(rule) === scopeOf(old));
    if (index === -1) continue;
    changed.push({ before: old, after: added[index] as CanonicalRule });
    added.splice(index, 1);
    removed.splice(removed.indexOf(old), 1);
  }
  return { settings, added, removed, changed };
}

/** The announcement of a policy change (an outbox body): the policy recorded before, and now. */
export interface PolicyChange {
  version: string;
  previousVersion: string;
  /** Undefined when the earlier record is not a canonical policy this payops can read. */
  before: CanonicalPolicy | undefined;
  after: CanonicalPolicy;
}

/** The outbox event of an announced policy change. */
export const POLICY_CHANGED = 'policy_changed';

const changeSchema = z.object({
  version: z.string(),
  previousVersion: z.string(),
  before: canonicalSchema.nullish(),
  after: canonicalSchema,
});

/** A policy change as stored, or undefined when `value` is not one. */
export function readPolicyChange(value: unknown): PolicyChange | undefined {
  const parsed = changeSchema.safeParse(value);
  return parsed.success ? { ...parsed.data, before: parsed.data.before ?? undefined } : undefined;
}
