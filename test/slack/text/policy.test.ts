import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/domain/policy.ts';
import { canonicalPolicy, POLICY_CHANGED } from '../../../src/domain/policy-version.ts';
import { renderAnnouncement } from '../../../src/slack/blocks/announcements.ts';
import { policyWords, renderPolicyChange, ruleWords } from '../../../src/slack/text/policy.ts';

const canonical = (text: string) => canonicalPolicy(parsePolicy(text, 'policy.yaml'));
const rule = (text: string) => canonical(`rules: [${text}]`).rules[0] as never;

describe('a rule in plain words', () => {
  it('names the operations by command word, the currencies, the amount and the window', () => {
    expect(
      ruleWords(
        rule(
          '{operations: [payout, transfer], currency: [USD, USDC], min_amount: "10000.50", window: 24h, approvals: 2}',
        ),
      ),
    ).toBe(
      "A payout or transfer request in USD or USDC of 10000.5 or more needs 2 approvals, adding up the same requester's requests to one payee within 1 day.",
    );
    expect(ruleWords(rule('{approvals: 3}'))).toBe('Any write request needs 3 approvals.');
    expect(ruleWords(rule('{operations: [offramp-route], currency: EUR, approvals: 2}'))).toBe(
      'An offramp-route request in EUR needs 2 approvals.',
    );
  });

  it('says the whole policy: the default, the expiry, then each rule', () => {
    expect(policyWords(canonical('default_approvals: 2\nexpiry_hours: 1\n'))).toEqual([
      'Every write needs 2 approvals from distinct approvers (PAYOPS_APPROVERS), never from its requester, unless a rule asks more.',
      'A request not approved within 1 hour expires.',
      'No rule raises the count.',
    ]);
    expect(
      policyWords(canonical('rules: [{operations: [payout], approvals: 2}]')).slice(2),
    ).toEqual([
      'A request needs the most approvals of the default and of every rule that matches it:',
      '  - A payout request needs 2 approvals.',
    ]);
  });
});

describe('the announcement of a policy change', () => {
  const before = canonical(`rules:
  - {operations: [payout], currency: USD, min_amount: "10000", approvals: 2}
  - {operations: [create-wallet], approvals: 2}
`);
  const after = canonical(`expiry_hours: 48
rules:
  - {operations: [payout], currency: USD, min_amount: "5000", window: 7d, approvals: 3}
  - {operations: [transfer], currency: EUR, approvals: 3}
`);
  const change = { version: 'b'.repeat(64), previousVersion: 'a'.repeat(64), before, after };

  it('lists what changed side by side, what was added and what was removed', () => {
    const message = renderPolicyChange(change);
    const shown = JSON.stringify(message.blocks);
    expect(message.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'The approval rules changed' },
    });
    for (const line of [
      '• *Changed:* Time a request may wait for approval: 24 hours → 48 hours.',
      "• *Changed:* A payout request in USD: of 10000 or more → of 5000 or more; each request counted alone → the same requester's requests to one payee within 7 days added up; 2 approvals → 3 approvals.",
      '• *Added:* A transfer request in EUR needs 3 approvals.',
      '• *Removed:* A create-wallet request needs 2 approvals.',
    ]) {
      expect(shown).toContain(JSON.stringify(line).slice(1, -1));
    }
    expect(shown).toContain('pending requests keep the approvals and expiry they were made with');
    expect(shown).toContain(`Policy version \`${'b'.repeat(64)}\` (before: \`${'a'.repeat(64)}\`)`);
    expect(message.text).toBe(`The approval rules changed: policy version ${'b'.repeat(64)}.`);
  });

  it('lists the rules in force when the rules before cannot be read', () => {
    const shown = JSON.stringify(renderPolicyChange({ ...change, before: undefined }).blocks);
    expect(shown).toContain('The rules before cannot be read from the audit log; the rules now:');
    expect(shown).toContain('• A payout request in USD of 5000 or more needs 3 approvals');
  });

  it('is drawn by the outbox from its stored data, and by nothing else', () => {
    const stored = JSON.parse(JSON.stringify(change));
    expect(renderAnnouncement(POLICY_CHANGED, stored)).toEqual(renderPolicyChange(change));
    expect(renderAnnouncement(POLICY_CHANGED, { version: 'b' })).toBeUndefined();
    expect(renderAnnouncement('something_else', stored)).toBeUndefined();
  });
});
