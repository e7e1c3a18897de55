import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/domain/policy.ts';
import { type CanonicalPolicy, canonicalPolicy } from '../../../src/domain/policy-version.ts';
import { renderPolicyChange, ruleWords } from '../../../src/slack/text/policy.ts';

const canonical = (text: string) => canonicalPolicy(parsePolicy(text, 'policy.yaml'));
const rule = (text: string) => canonical(`rules: [${text}]`).rules[0] as never;

/** The change announcement's blocks, as JSON, from `before` to `after`. */
const announced = (before: CanonicalPolicy, after: CanonicalPolicy) =>
  JSON.stringify(
    renderPolicyChange({ version: 'b'.repeat(64), previousVersion: 'a'.repeat(64), before, after })
      .blocks,
  );

describe('approval chains and requester limits in plain words', () => {
  it('says the steps in order, with their caps, and a requester limit', () => {
    expect(
      ruleWords(
        rule(
          '{operations: [payout], currency: USD, min_amount: "10000", steps: [{approvers: [S0TREASURY], max_amount: "50000"}, {approvers: [U0CFO, S0FINLEADS]}]}',
        ),
      ),
    ).toBe(
      "A payout request in USD of 10000 or more needs 1 approval from S0TREASURY (each approving up to 50000), then 1 from S0FINLEADS or U0CFO, in that order, one person counting for one step; a request over a step's cap is refused.",
    );
    expect(
      ruleWords(
        rule(
          '{operations: [payout], currency: USD, approvals: 1, requester_limit: {amount: "25000", window: 24h, approvals: 3}}',
        ),
      ),
    ).toBe(
      'A payout request in USD needs 1 approval; past 25000 requested by one requester within 1 day, to any payee, 3 approvals.',
    );
    expect(
      ruleWords(
        rule(
          '{operations: [payout], currency: USD, approvals: 1, requester_limit: {amount: "25000", window: 7d, refuse: true}}',
        ),
      ),
    ).toContain('past 25000 requested by one requester within 7 days, to any payee, refused.');
  });

  it('the announcement of a change shows the steps and the limit before and after', () => {
    const before = canonical(`rules:
  - {operations: [payout], currency: USD, min_amount: "10000", approvals: 2}
  - {operations: [transfer], currency: EUR, approvals: 1}
`);
    const after = canonical(`rules:
  - {operations: [payout], currency: USD, min_amount: "10000", steps: [{approvers: [S0TREASURY]}, {approvers: [S0FINLEADS]}]}
  - {operations: [transfer], currency: EUR, approvals: 1, requester_limit: {amount: "1000", window: 24h, refuse: true}}
`);
    const shown = JSON.stringify(
      renderPolicyChange({
        version: 'b'.repeat(64),
        previousVersion: 'a'.repeat(64),
        before,
        after,
      }).blocks,
    );
    expect(shown).toContain(
      '• *Changed:* A payout request in USD: 2 approvals → 1 approval from S0TREASURY, then 1 from S0FINLEADS, in that order, one person counting for one step.',
    );
    expect(shown).toContain(
      '• *Changed:* A transfer request in EUR: no requester limit → past 1000 requested by one requester within 1 day, to any payee, refused.',
    );
  });

  it("says what happens past a step's cap: the next step, or refused", () => {
    const capped =
      '{operations: [payout], currency: USD, steps: [{approvers: [S0A], max_amount: "50000"}, {approvers: [S0B]}]';
    expect(ruleWords(rule(`${capped}, over_cap: next_step}`))).toContain(
      "one person counting for one step; a request over a step's cap skips that step (refused when no step is left).",
    );
    const shown = announced(
      canonical(`rules: [${capped}}]`),
      canonical(`rules: [${capped}, over_cap: next_step}]`),
    );
    expect(shown).toContain(
      "a request over a step's cap is refused → 1 approval from S0A (each approving up to 50000), then 1 from S0B, in that order, one person counting for one step; a request over a step's cap skips that step",
    );
  });

  it("says each approver's cap, and announces a change of caps", () => {
    const base = '{operations: [payout], currency: USD, approvals: 1';
    const caps = `${base}, approver_limits: {U0BOB: "5000", S0TREASURY: "20000.00"}}`;
    const words =
      'approving at most (the smallest cap of a person applies): each member of S0TREASURY up to 20000, U0BOB up to 5000';
    expect(ruleWords(rule(caps))).toBe(`A payout request in USD needs 1 approval; ${words}.`);
    const shown = announced(canonical(`rules: [${base}}]`), canonical(`rules: [${caps}]`));
    expect(shown).toContain(`• *Changed:* A payout request in USD: no approver caps → ${words}.`);
  });

  it('says when one person may fill several steps, and announces that change', () => {
    const steps =
      '{operations: [payout], currency: USD, steps: [{approvers: [S0A]}, {approvers: [S0B]}]';
    const words =
      'A payout request in USD needs 1 approval from S0A, then 1 from S0B, in that order, one person counting at most once in each step and possibly in several.';
    expect(ruleWords(rule(`${steps}, same_person_may_fill_steps: true}`))).toBe(words);
    const shown = announced(
      canonical(`rules: [${steps}}]`),
      canonical(`rules: [${steps}, same_person_may_fill_steps: true}]`),
    );
    expect(shown).toContain(
      `• *Changed:* A payout request in USD: 1 approval from S0A, then 1 from S0B, in that order, one person counting for one step → ${words.slice('A payout request in USD needs '.length, -1)}.`,
    );
  });
});
