import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, parsePolicy } from '../../src/domain/policy.ts';
import {
  canonicalJson,
  canonicalPolicy,
  diffPolicies,
  policyVersion,
  readCanonicalPolicy,
  readPolicyChange,
} from '../../src/domain/policy-version.ts';

const README_EXAMPLE = `
default_approvals: 1
expiry_hours: 24
rules:
  - operations: [payout, transfer]
    currency: [USD, USDC]   # USD and USDC are different currencies: list each one meant
    min_amount: "10000"     # in units of any listed currency, no exchange rate
    window: 24h             # optional: 30m, 24h, 7d; the card says when it raised the count
    approvals: 2
`;

const version = (text: string) => policyVersion(parsePolicy(text, 'policy.yaml'));
const canonical = (text: string) => canonicalPolicy(parsePolicy(text, 'policy.yaml'));

describe('the policy version', () => {
  it('is the SHA-256 of the canonical form: sorted keys, defaults written in, no spaces', () => {
    expect(canonicalJson(canonical(README_EXAMPLE))).toBe(
      '{"default_approvals":1,"expiry_hours":24,"rules":[{"approvals":2,"currency":["USD","USDC"],"min_amount":"10000","operations":["createPayout","createTransfer"],"window":"1d"}]}',
    );
    expect(version(README_EXAMPLE)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not change with whitespace, comments, key order, JSON for YAML, or rule order', () => {
    const same = [
      `rules:\n- {approvals: 2, window: 24h, min_amount: "10000", currency: [USD, USDC], operations: [payout, transfer]}\n`,
      JSON.stringify({
        rules: [
          {
            operations: ['transfer', 'payout'],
            currency: ['USDC', 'USD'],
            min_amount: '10000',
            window: '24h',
            approvals: 2,
          },
        ],
        expiry_hours: 24,
      }),
      `# the treasury's rules\n\n${README_EXAMPLE.replace(/ {3}#.*$/gm, '')}\n\n`,
    ];
    for (const text of same) expect(version(text)).toBe(version(README_EXAMPLE));

    const two = `rules:
  - {operations: [payout], currency: EUR, approvals: 3}
  - {operations: [transfer], approvals: 2}
`;
    const swapped = `rules:
  - {operations: [transfer], approvals: 2}
  - {operations: [payout], currency: EUR, approvals: 3}
`;
    expect(version(swapped)).toBe(version(two));
  });

  it('does not change with how a value is spelt when it means the same', () => {
    const spelt = `default_approvals: 1
rules:
  - operations: [createTransfer, PAYOUT, payout]
    currency: [usdc, usd]
    min_amount: "10000.00"
    window: 1d
    approvals: 2
  - operations: [transfer, payout]
    currency: [USD, USDC]
    min_amount: "10000"
    window: 1440m
    approvals: 2
`;
    expect(version(spelt)).toBe(version(README_EXAMPLE));
    expect(version('rules: []')).toBe(policyVersion(DEFAULT_POLICY));
    expect(version('default_approvals: 1\nexpiry_hours: 24\n')).toBe(policyVersion(DEFAULT_POLICY));
  });

  it('changes when what the rules mean changes', () => {
    const base = version(README_EXAMPLE);
    const changes = [
      README_EXAMPLE.replace('"10000"', '"10000.01"'),
      README_EXAMPLE.replace('approvals: 2', 'approvals: 3'),
      README_EXAMPLE.replace('window: 24h', 'window: 48h'),
      README_EXAMPLE.replace('[USD, USDC]', '[USD]'),
      README_EXAMPLE.replace('[payout, transfer]', '[payout]'),
      README_EXAMPLE.replace('expiry_hours: 24', 'expiry_hours: 48'),
      README_EXAMPLE.replace(/ {4}window: 24h.*\n/, ''),
    ];
    const versions = changes.map(version);
    for (const changed of versions) expect(changed).not.toBe(base);
    expect(new Set(versions).size).toBe(changes.length);
  });

  it('tells a rule for every write from one listing every write today', () => {
    expect(version('rules: [{approvals: 2}]')).not.toBe(
      version('rules: [{operations: [payout], approvals: 2}]'),
    );
    expect(canonical('rules: [{approvals: 2}]').rules[0]).toMatchObject({
      operations: 'all',
      currency: 'any',
      min_amount: null,
      window: null,
    });
  });
});

describe('a canonical policy read back', () => {
  it('is the canonical policy it was, through JSON', () => {
    const policy = canonical(README_EXAMPLE);
    expect(readCanonicalPolicy(JSON.parse(JSON.stringify(policy)))).toEqual(policy);
    expect(readCanonicalPolicy({ rules: 'none' })).toBeUndefined();
  });

  it('reads a stored change, the rules before missing or not', () => {
    const after = canonical(README_EXAMPLE);
    const stored = JSON.parse(JSON.stringify({ version: 'b', previousVersion: 'a', after }));
    expect(readPolicyChange(stored)).toEqual({
      version: 'b',
      previousVersion: 'a',
      before: undefined,
      after,
    });
    expect(readPolicyChange({ version: 'b' })).toBeUndefined();
  });
});

describe('the difference between two policies', () => {
  it('pairs a rule of the same operations and currencies as changed; the rest came or went', () => {
    const before = canonical(`default_approvals: 1
rules:
  - {operations: [payout], currency: USD, min_amount: "10000", approvals: 2}
  - {operations: [payout], currency: USD, min_amount: "50000", approvals: 3}
  - {operations: [create-wallet], approvals: 2}
`);
    const after = canonical(`default_approvals: 2
expiry_hours: 24
rules:
  - {operations: [payout], currency: USD, min_amount: "50000", approvals: 3}
  - {operations: [payout], currency: USD, min_amount: "5000", approvals: 2}
  - {operations: [transfer], currency: EUR, approvals: 3}
`);
    const diff = diffPolicies(before, after);
    expect(diff.settings).toEqual([{ setting: 'default_approvals', before: 1, after: 2 }]);
    expect(diff.changed).toEqual([
      {
        before: expect.objectContaining({ min_amount: '10000', approvals: 2 }),
        after: expect.objectContaining({ min_amount: '5000', approvals: 2 }),
      },
    ]);
    expect(diff.added).toEqual([expect.objectContaining({ operations: ['createTransfer'] })]);
    expect(diff.removed).toEqual([expect.objectContaining({ operations: ['createWallet'] })]);
  });

  it('is empty between two spellings of one policy', () => {
    expect(diffPolicies(canonical(README_EXAMPLE), canonical(README_EXAMPLE))).toEqual({
      settings: [],
      added: [],
      removed: [],
      changed: [],
    });
  });
});
