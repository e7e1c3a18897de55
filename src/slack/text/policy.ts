import { OPERATIONS } from '../../domain/operations.ts';
import {
  type CanonicalPolicy,
  type CanonicalRule,
  type CanonicalStep,
  canonicalJson,
  diffPolicies,
  type PolicyChange,
  type PolicyDiff,
} from '../../domain/policy-version.ts';
import { counted, escapeMrkdwn, layOut, type SlackMessage } from '../blocks/format.ts';

/**
 * The approval policy in plain words: each rule as a sentence (also `payops policy check`'s), and
 * the announcement in the approvals channel when payops starts under a policy other than the one
 * it recorded last: rules added, removed and changed, each change before → after.
 */

const UNIT_WORDS: Readonly<Record<string, string>> = { d: 'day', h: 'hour', m: 'minute' };

/** `1d` → `1 day`, `36h` → `36 hours`. */
function spanWords(window: string): string {
  const count = Number.parseInt(window, 10);
  return counted(count, UNIT_WORDS[window.slice(-1)] ?? window.slice(-1));
}

/** `a`, `a or b`, `a, b or c`. */
function either(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** What a rule applies to: `a payout or transfer request in USD or USDC`. */
function scopeWords(rule: CanonicalRule): string {
  const what =
    rule.operations === 'all'
      ? 'any write request'
      : `${either(rule.operations.map((id) => OPERATIONS[id].command))} request`;
  const article = rule.operations === 'all' ? '' : /^[aeiou]/.test(what) ? 'an ' : 'a ';
  const currency = rule.currency === 'any' ? '' : ` in ${either(rule.currency)}`;
  return `${article}${what}${currency}`;
}

function thresholdWords(minAmount: string | null): string {
  return minAmount === null ? 'of any amount' : `of ${minAmount} or more`;
}

function windowPhrase(window: string): string {
  return `the same requester's requests to one payee within ${spanWords(window)}`;
}

function windowWords(window: string | null): string {
  return window === null ? 'each request counted alone' : `${windowPhrase(window)} added up`;
}

function capitalised(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** A rule as one plain sentence. */
export function ruleWords(rule: CanonicalRule): string {
  const amount = rule.min_amount === null ? '' : ` ${thresholdWords(rule.min_amount)}`;
  const window = rule.window === null ? '' : `, adding up ${windowPhrase(rule.window)}`;
  const limit = rule.requester_limit ? `; ${limitWords(rule.requester_limit)}` : '';
  const caps = rule.approver_limits ? `; ${capsWords(rule.approver_limits)}` : '';
  return `${capitalised(scopeWords(rule))}${amount} needs ${chainWords(rule)}${window}${limit}${caps}.`;
}

/** Each approver's cap: `U0BOB may approve up to 5000, each member of S0T up to 20000`. */
function capsWords(caps: Readonly<Record<string, string>>): string {
  const each = Object.entries(caps)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([who, limit]) => `${who.startsWith('S') ? `each member of ${who}` : who} up to ${limit}`);
  return `approving at most (the smallest cap of a person applies): ${each.join(', ')}`;
}

/** A requester limit: what one requester may request in its window, and what past it needs. */
function limitWords(limit: NonNullable<CanonicalRule['requester_limit']>): string {
  const past = limit.approvals === undefined ? 'refused' : counted(limit.approvals, 'approval');
  return `past ${limit.amount} requested by one requester within ${spanWords(limit.window)}, to any payee, ${past}`;
}

/** What a rule needs: its count, or its chain's steps. */
function chainWords(rule: CanonicalRule): string {
  return rule.steps
    ? stepsWords(rule.steps, rule.same_person_may_fill_steps, rule.over_cap)
    : counted(rule.approvals, 'approval');
}

/** A chain's steps in order: `1 approval from S1, then 1 from S2 or U3, …`. */
function stepsWords(
  steps: readonly CanonicalStep[],
  samePerson: true | undefined,
  overCap: 'next_step' | undefined,
): string {
  const each = steps.map(
    (step, index) =>
      `${index === 0 ? counted(step.approvals, 'approval') : step.approvals} from ${step.approvers.join(' or ')}${step.max_amount === undefined ? '' : ` (each approving up to ${step.max_amount})`}`,
  );
  const once = samePerson
    ? 'one person counting at most once in each step and possibly in several'
    : 'one person counting for one step';
  const capped = steps.some((step) => step.max_amount !== undefined);
  const past = !capped
    ? ''
    : overCap === 'next_step'
      ? "; a request over a step's cap skips that step (refused when no step is left)"
      : "; a request over a step's cap is refused";
  return `${each.join(', then ')}, in that order, ${once}${past}`;
}

function defaultWords(approvals: number): string {
  return `Every write needs ${counted(approvals, 'approval')} from distinct approvers (PAYOPS_APPROVERS), never from its requester, unless a rule asks more.`;
}

function expiryWords(hours: number): string {
  return `A request not approved within ${counted(hours, 'hour')} expires.`;
}

/** The whole policy in plain sentences: the defaults, then each rule. */
export function policyWords(policy: CanonicalPolicy): string[] {
  return [
    defaultWords(policy.default_approvals),
    expiryWords(policy.expiry_hours),
    ...(policy.rules.length === 0
      ? ['No rule raises the count.']
      : [
          'A request needs the most approvals of the default and of every rule that matches it:',
          ...policy.rules.map((rule) => `  - ${ruleWords(rule)}`),
        ]),
  ];
}

/** What changed in a rule of the same operations and currencies, before → after. */
function changeWords({ before, after }: PolicyDiff['changed'][number]): string {
  const parts = [
    before.min_amount !== after.min_amount &&
      `${thresholdWords(before.min_amount)} → ${thresholdWords(after.min_amount)}`,
    before.window !== after.window &&
      `${windowWords(before.window)} → ${windowWords(after.window)}`,
    before.approvals !== after.approvals &&
      !before.steps &&
      !after.steps &&
      `${counted(before.approvals, 'approval')} → ${counted(after.approvals, 'approval')}`,
    canonicalJson(before.requester_limit ?? null) !==
      canonicalJson(after.requester_limit ?? null) &&
      `${before.requester_limit ? limitWords(before.requester_limit) : 'no requester limit'} → ${after.requester_limit ? limitWords(after.requester_limit) : 'no requester limit'}`,
    canonicalJson(before.approver_limits ?? null) !==
      canonicalJson(after.approver_limits ?? null) &&
      `${before.approver_limits ? capsWords(before.approver_limits) : 'no approver caps'} → ${after.approver_limits ? capsWords(after.approver_limits) : 'no approver caps'}`,
    (before.steps || after.steps) &&
      canonicalJson([before.steps ?? [], before.same_person_may_fill_steps, before.over_cap]) !==
        canonicalJson([after.steps ?? [], after.same_person_may_fill_steps, after.over_cap]) &&
      `${chainWords(before)} → ${chainWords(after)}`,
  ].filter((part): part is string => typeof part === 'string');
  return `${capitalised(scopeWords(before))}: ${parts.join('; ')}.`;
}

const SETTING_WORDS: Readonly<
  Record<PolicyDiff['settings'][number]['setting'], (value: number) => string>
> = {
  default_approvals: (value) => counted(value, 'approval'),
  expiry_hours: (value) => counted(value, 'hour'),
};

const SETTING_NAMES: Readonly<Record<PolicyDiff['settings'][number]['setting'], string>> = {
  default_approvals: 'Approvals every write needs',
  expiry_hours: 'Time a request may wait for approval',
};

/** The diff's lines: settings and rules changed side by side, rules added and removed. */
function diffLines(diff: PolicyDiff): string[] {
  const line = (label: string, text: string) => `• *${label}:* ${escapeMrkdwn(text)}`;
  return [
    ...diff.settings.map(({ setting, before, after }) =>
      line(
        'Changed',
        `${SETTING_NAMES[setting]}: ${SETTING_WORDS[setting](before)} → ${SETTING_WORDS[setting](after)}.`,
      ),
    ),
    ...diff.changed.map((change) => line('Changed', changeWords(change))),
    ...diff.added.map((rule) => line('Added', ruleWords(rule))),
    ...diff.removed.map((rule) => line('Removed', ruleWords(rule))),
  ];
}

/** The approvals channel's announcement of a policy other than the one recorded last. */
export function renderPolicyChange(change: PolicyChange): SlackMessage {
  const lines = change.before
    ? diffLines(diffPolicies(change.before, change.after))
    : [
        'The rules before cannot be read from the audit log; the rules now:',
        ...[
          defaultWords(change.after.default_approvals),
          expiryWords(change.after.expiry_hours),
          ...change.after.rules.map(ruleWords),
        ].map((text) => `• ${escapeMrkdwn(text)}`),
      ];
  const units = lines.length > 0 ? lines : ['Only how the rules are written changed.'];
  return layOut({
    header: 'The approval rules changed',
    intro: [
      'payops started under approval rules other than those it last recorded. They apply to requests made from now on; pending requests keep the approvals and expiry they were made with.',
    ],
    units,
    packing: 'lines',
    footer: (shown) => [
      ...(shown < units.length
        ? [
            `${units.length - shown} more changes are not shown: \`payops policy check\` prints the rules.`,
          ]
        : []),
      `Policy version \`${change.version}\` (before: \`${change.previousVersion}\`), recorded in the audit log.`,
    ],
    text: () => `The approval rules changed: policy version ${change.version}.`,
  });
}
