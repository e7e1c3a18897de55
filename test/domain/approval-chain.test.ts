import { describe, expect, it } from 'vitest';
import type { WriteIntent } from '../../src/domain/approval.ts';
import { openStep } from '../../src/domain/approval-chain.ts';
import {
  approvalRefusal,
  approverCapRefusal,
  approverCaps,
  approverShortage,
  PolicyError,
  parsePolicy,
  requiredApprovals,
  stepFor,
} from '../../src/domain/policy.ts';
import { policyVersion } from '../../src/domain/policy-version.ts';

const CHAIN = `
rules:
  - operations: [payout]
    currency: USD
    min_amount: "10000"
    steps:
      - approvers: [S0TREASURY]
        max_amount: "50000"
      - approvers: [S0FINLEADS, U0CFO]
`;

function problems(text: string): string[] {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
  }
  return [];
}

const payout = (amount: string): WriteIntent => ({
  operationId: 'createPayout',
  path: {},
  fields: { amount, currency: 'USD', wallet_id: 'wal_1' },
});

describe('approval chains in the policy', () => {
  it('a rule with steps needs their total, in order, with the rule and its steps', () => {
    const policy = parsePolicy(CHAIN, 'policy.yaml');
    expect(requiredApprovals(policy, payout('9999.99'))).toMatchObject({
      approvals: 1,
      chain: undefined,
    });
    expect(requiredApprovals(policy, payout('10000'))).toMatchObject({
      approvals: 2,
      chain: {
        rule: 0,
        steps: [
          { approvers: ['S0TREASURY'], approvals: 1, maxAmount: '50000' },
          { approvers: ['S0FINLEADS', 'U0CFO'], approvals: 1 },
        ],
      },
    });
  });

  it('the strictest rule wins: more approvals beat a chain, a chain beats as many approvals', () => {
    const more = parsePolicy(
      `${CHAIN}  - operations: [payout]\n    currency: USD\n    min_amount: "20000"\n    approvals: 3\n`,
      'policy.yaml',
    );
    expect(requiredApprovals(more, payout('20000'))).toMatchObject({
      approvals: 3,
      chain: undefined,
    });
    const same = parsePolicy(
      `${CHAIN}  - operations: [payout]\n    currency: USD\n    approvals: 2\n`,
      'policy.yaml',
    );
    expect(requiredApprovals(same, payout('20000')).chain?.rule).toBe(0);
  });

  it('refuses steps with approvals, a cap without a currency or below the threshold', () => {
    expect(
      problems(
        'rules:\n  - approvals: 2\n    steps:\n      - approvers: [S0A]\n        max_amount: "5"\n',
      ),
    ).toEqual([
      'rules[0].steps: comes with approvals: write one of them (a chain needs its steps’ total)',
      'rules[0].steps[0].max_amount: needs the rule to name its currency: amounts in different currencies cannot be compared',
    ]);
    expect(problems(CHAIN.replace('"50000"', '"5000"'))).toEqual([
      "rules[0].steps[0].max_amount: is below the rule's min_amount (10000): this step could approve none of its requests",
    ]);
    expect(problems(CHAIN.replace('[S0TREASURY]', '[treasury]'))).toEqual([
      'rules[0].steps[0].approvers[0]: must be a Slack user group id (S…) or user id (U…), like S0TREASURY or U0CFO',
    ]);
  });

  it('a policy without steps keeps its version; steps and caps change it', () => {
    const plain = 'rules:\n  - operations: [payout]\n    currency: USD\n    approvals: 2\n';
    expect(policyVersion(parsePolicy(plain, 'a'))).toBe(
      policyVersion(parsePolicy(`${plain}\n# a comment\n`, 'b')),
    );
    const chain = policyVersion(parsePolicy(CHAIN, 'c'));
    expect(policyVersion(parsePolicy(CHAIN.replace('"50000"', '"50000.00"'), 'd'))).toBe(chain);
    expect(policyVersion(parsePolicy(CHAIN.replace('"50000"', '"60000"'), 'e'))).not.toBe(chain);
  });

  it('an approval fills the open step, from its people, within its cap', () => {
    const chain = requiredApprovals(parsePolicy(CHAIN, 'p'), payout('10000')).chain;
    const request = (amount: string, steps: number[]) => ({
      body: JSON.stringify({ amount, currency: 'USD' }),
      approvals: steps.map((step) => ({ userId: 'U0X', at: '', step })),
      chain: { ...(chain as NonNullable<typeof chain>), policyVersion: 'v' },
    });
    expect(stepFor(request('10000', []), (step) => step === 0)).toEqual({ step: 0 });
    expect(stepFor(request('10000', []), (step) => step === 1)).toEqual({
      refusal: { code: 'not_in_open_step', step: 1, steps: 2, approvers: ['S0TREASURY'] },
    });
    expect(stepFor(request('10000', [0]), () => true)).toEqual({ step: 1 });
    expect(stepFor(request('10000', []), () => undefined)).toEqual({
      refusal: { code: 'approvers_unconfirmed' },
    });
    expect(stepFor(request('50000.01', []), () => true)).toEqual({
      refusal: {
        code: 'over_approval_limit',
        step: 1,
        limit: '50000',
        amount: '50000.01',
        currency: 'USD',
      },
    });
    expect(openStep(request('1', [0, 1]).chain, [{ step: 0 }, { step: 1 }])).toBeUndefined();
  });

  it('start-up: a step with fewer people than its count, one requester counted out, is named', () => {
    const policy = parsePolicy(CHAIN.replace('[S0FINLEADS, U0CFO]', '[S0FINLEADS]'), 'p');
    const supply = (finleads: string[]) => ({
      approvers: 5,
      approverMayRequest: false,
      unlisted: [],
      stepGroups: new Map([
        ['S0TREASURY', ['U1', 'U2']],
        ['S0FINLEADS', finleads],
      ]),
      requesters: new Set(['U9']),
    });
    expect(approverShortage(policy, supply(['U3']))).toBeUndefined();
    expect(approverShortage(policy, supply([]))).toEqual({
      message: "the policy's rules[0]: step 2 (S0FINLEADS) needs 1 approval but has 0 people",
      certain: true,
      remedy:
        "Add people to the step's groups or users, or lower its approvals in PAYOPS_POLICY_FILE.",
    });
    // The only finance lead may request: their own requests would wait forever.
    expect(
      approverShortage(policy, { ...supply(['U9']), requesters: new Set(['U9']) })?.message,
    ).toBe(
      "the policy's rules[0]: step 2 (S0FINLEADS) needs 1 approval but has 0 people, one counted out as its requester may be among them",
    );
    // One person in both groups cannot fill both steps.
    const both = {
      ...supply(['U1']),
      stepGroups: new Map([
        ['S0TREASURY', ['U1']],
        ['S0FINLEADS', ['U1']],
      ]),
    };
    expect(approverShortage(policy, both)?.message).toBe(
      "the policy's rules[0]: its steps need 2 approvals from distinct people but have 1 person",
    );
  });

  it('same_person_may_fill_steps: one person may fill several steps, once each, never as requester', () => {
    const text = `${CHAIN}    same_person_may_fill_steps: true\n`;
    const policy = parsePolicy(text, 'p');
    const chain = requiredApprovals(policy, payout('10000')).chain;
    expect(chain?.samePersonMayFillSteps).toBe(true);
    const request = (approvals: Array<{ userId: string; step: number }>) => ({
      requesterId: 'U0REQ',
      status: 'pending' as const,
      expiresAt: '2999-01-01T00:00:00Z',
      approvals: approvals.map((approval) => ({ ...approval, at: '' })),
      chain: { ...(chain as NonNullable<typeof chain>), policyVersion: 'v' },
    });
    const now = new Date('2026-01-01T00:00:00Z');
    // Filled step 1: may fill step 2; without the key, already approved.
    expect(approvalRefusal(request([{ userId: 'U1', step: 0 }]), 'U1', now)).toBeUndefined();
    const strict = { ...request([{ userId: 'U1', step: 0 }]), chain: { ...request([]).chain } };
    delete strict.chain.samePersonMayFillSteps;
    expect(approvalRefusal(strict, 'U1', now)).toEqual({ code: 'already_approved' });
    expect(approvalRefusal(request([]), 'U0REQ', now)).toEqual({ code: 'own_request' });
    // A step of two approvals takes one person once.
    const twice = parsePolicy(
      text.replace('[S0TREASURY]', '[S0TREASURY]\n        approvals: 2'),
      'p',
    );
    const twoStep = requiredApprovals(twice, payout('10000')).chain;
    expect(
      approvalRefusal(
        {
          ...request([{ userId: 'U1', step: 0 }]),
          chain: { ...(twoStep as NonNullable<typeof twoStep>), policyVersion: 'v' },
        },
        'U1',
        now,
      ),
    ).toEqual({ code: 'already_approved' });
    // Start-up: one person in both groups is enough.
    const oneInBoth = {
      approvers: 5,
      approverMayRequest: false,
      unlisted: [],
      stepGroups: new Map([
        ['S0TREASURY', ['U1']],
        ['S0FINLEADS', ['U1']],
      ]),
      requesters: new Set(['U9']),
    };
    expect(approverShortage(policy, oneInBoth)).toBeUndefined();
    // The key is in the version only when present; only with steps.
    expect(policyVersion(policy)).not.toBe(policyVersion(parsePolicy(CHAIN, 'p')));
    expect(problems('rules:\n  - approvals: 2\n    same_person_may_fill_steps: true\n')).toEqual([
      'rules[0].same_person_may_fill_steps: needs steps: it lets one person fill more than one step of a chain',
    ]);
    expect(problems(`${CHAIN}    same_person_may_fill_steps: false\n`)).toEqual([
      'rules[0].same_person_may_fill_steps: must be true, or left out (one person counts for one step)',
    ]);
  });
});

describe("past a step's cap: over_cap", () => {
  it("refuse (the default): a request over a step's cap is refused at creation, naming the step and its cap", () => {
    const policy = parsePolicy(CHAIN, 'p');
    expect(requiredApprovals(policy, payout('60000')).stepRefused).toEqual({
      rule: 0,
      step: 1,
      limit: '50000',
      amount: '60000',
      currency: 'USD',
    });
    expect(requiredApprovals(policy, payout('50000')).stepRefused).toBeUndefined();
    expect(requiredApprovals(policy, payout('not a number')).stepRefused).toMatchObject({
      step: 1,
    });
  });

  it('next_step: the step is passed over and the chain keeps the rest; no step left refuses', () => {
    const text = `${CHAIN}    over_cap: next_step\n`;
    const need = requiredApprovals(parsePolicy(text, 'p'), payout('60000'));
    expect(need.stepRefused).toBeUndefined();
    expect(need.approvals).toBe(1);
    expect(need.chain?.steps).toEqual([{ approvers: ['S0FINLEADS', 'U0CFO'], approvals: 1 }]);
    const bothCapped = parsePolicy(
      text.replace('[S0FINLEADS, U0CFO]', '[S0FINLEADS, U0CFO]\n        max_amount: "55000"'),
      'p',
    );
    expect(requiredApprovals(bothCapped, payout('60000')).stepRefused).toMatchObject({
      step: 2,
      limit: '55000',
    });
    // A cut chain never needs fewer than default_approvals.
    const floor = parsePolicy(`default_approvals: 2\n${text}`, 'p');
    expect(requiredApprovals(floor, payout('60000')).stepRefused).toMatchObject({ step: 1 });
  });

  it('needs a capped step; in the version only as next_step', () => {
    expect(
      problems(`${CHAIN.replace('        max_amount: "50000"\n', '')}    over_cap: next_step\n`),
    ).toEqual([
      "rules[0].over_cap: needs a step with max_amount: it says what happens past a step's cap",
    ]);
    expect(problems(`${CHAIN}    over_cap: skip\n`)).toEqual([
      'rules[0].over_cap: must be next_step or refuse',
    ]);
    const version = policyVersion(parsePolicy(CHAIN, 'p'));
    expect(policyVersion(parsePolicy(`${CHAIN}    over_cap: refuse\n`, 'p'))).toBe(version);
    expect(policyVersion(parsePolicy(`${CHAIN}    over_cap: next_step\n`, 'p'))).not.toBe(version);
  });
});

describe("approvers' own caps in the policy (approver_limits)", () => {
  const CAPS = `rules:
  - operations: [payout]
    currency: USD
    approvals: 1
    approver_limits: { U0BOB: "5000", S0TREASURY: "20000.00" }
`;

  it('names the caps of the rules a request matches; the smallest naming the approver applies', () => {
    const policy = parsePolicy(CAPS, 'p');
    const fields = (amount: string, currency = 'USD') => ({ amount, currency, wallet_id: 'w' });
    const caps = approverCaps(policy, 'createPayout', fields('6000'));
    expect(caps).toEqual([
      { approver: 'U0BOB', limit: '5000' },
      { approver: 'S0TREASURY', limit: '20000.00' },
    ]);
    expect(approverCaps(policy, 'createPayout', fields('6000', 'EUR'))).toEqual([]);
    expect(approverCaps(policy, 'createTransfer', fields('6000'))).toEqual([]);
    // Bob is named and in treasury: his own 5000 applies.
    expect(approverCapRefusal(caps, fields('6000'))).toEqual({
      code: 'over_approval_limit',
      approver: 'U0BOB',
      limit: '5000',
      amount: '6000',
      currency: 'USD',
    });
    expect(approverCapRefusal(caps, fields('5000.00'))).toBeUndefined();
    // Carol is in treasury only.
    const carol = caps.filter((cap) => cap.approver === 'S0TREASURY');
    expect(approverCapRefusal(carol, fields('20000'))).toBeUndefined();
    expect(approverCapRefusal(carol, fields('1e9'))).toMatchObject({ limit: '20000.00' });
    expect(approverCapRefusal([], fields('1000000'))).toBeUndefined();
  });

  it('needs a currency, Slack ids and quoted amounts; in the version only when present', () => {
    expect(problems(CAPS.replace('    currency: USD\n', ''))).toEqual([
      'rules[0].approver_limits: needs a currency: amounts in different currencies cannot be compared',
    ]);
    expect(problems(CAPS.replace('"5000"', '5000'))[0]).toMatch(
      /^rules\[0\]\.approver_limits\.U0BOB: must be quoted/,
    );
    expect(problems(CAPS.replace('U0BOB', 'bob'))[0]).toMatch(/^rules\[0\]\.approver_limits/);
    expect(problems(CAPS.replace(/\{.*\}/, '{}'))).toEqual([
      'rules[0].approver_limits: is empty: leave it out for no cap',
    ]);
    const without = CAPS.replace(/ {4}approver_limits.*\n/, '');
    expect(policyVersion(parsePolicy(without, 'p'))).toBe(
      policyVersion(
        parsePolicy('rules: [{operations: [payout], currency: USD, approvals: 1}]', 'p'),
      ),
    );
    const version = policyVersion(parsePolicy(CAPS, 'p'));
    expect(version).not.toBe(policyVersion(parsePolicy(without, 'p')));
    expect(policyVersion(parsePolicy(CAPS.replace('20000.00', '20000'), 'p'))).toBe(version);
  });
});

describe('requester limits in the policy', () => {
  const LIMIT = `
rules:
  - operations: [payout]
    currency: USD
    approvals: 1
    requester_limit: { amount: "1000", window: 24h, approvals: 2 }
`;
  const now = new Date('2026-11-28T12:00:00Z');
  const earlier = (amount: string, hoursAgo: number, currency = 'USD') => ({
    operationId: 'createPayout' as const,
    body: JSON.stringify({ amount, currency }),
    createdAt: new Date(now.getTime() - hoursAgo * 3_600_000).toISOString(),
  });

  it('counts the requester’s requests to any payee within its window; past the amount, more approvals', () => {
    const policy = parsePolicy(LIMIT, 'p');
    const need = (byRequester: ReturnType<typeof earlier>[]) =>
      requiredApprovals(policy, payout('400'), { earlier: [], now, byRequester });
    expect(need([earlier('600', 1)]).approvals).toBe(1);
    expect(need([earlier('600', 1)]).limitRaised).toBeUndefined();
    expect(need([earlier('600', 25), earlier('700', 1, 'EUR')]).approvals).toBe(1);
    expect(need([earlier('600.01', 1)])).toMatchObject({
      approvals: 2,
      limitRaised: {
        window: '24h',
        total: '1000.01',
        currencies: ['USD'],
        limit: '1000',
        requests: 1,
      },
    });
  });

  it('is refused without a currency or on a rule with steps; its words and version', () => {
    expect(problems(LIMIT.replace('    currency: USD\n', ''))).toEqual([
      'rules[0].requester_limit: needs a currency: amounts in different currencies cannot be added up',
    ]);
    expect(problems(`${LIMIT}    steps:\n      - approvers: [S0A]\n`)).toContain(
      'rules[0].requester_limit: cannot be on a rule with steps: put it on a rule of its own',
    );
    const version = policyVersion(parsePolicy(LIMIT, 'p'));
    expect(policyVersion(parsePolicy(LIMIT.replace('24h', '1d'), 'p'))).toBe(version);
    expect(policyVersion(parsePolicy(LIMIT.replace('"1000"', '"2000"'), 'p'))).not.toBe(version);
  });

  it('refuse: true refuses past the amount instead; one of approvals and refuse is required', () => {
    const refusing = parsePolicy(LIMIT.replace('approvals: 2 }', 'refuse: true }'), 'p');
    const need = requiredApprovals(refusing, payout('400'), {
      earlier: [],
      now,
      byRequester: [earlier('700', 2)],
    });
    expect(need.approvals).toBe(1);
    expect(need.limitRefused).toEqual({
      window: '24h',
      total: '1100',
      currencies: ['USD'],
      limit: '1000',
      requests: 1,
    });
    expect(problems(LIMIT.replace(', approvals: 2 }', ' }'))).toEqual([
      'rules[0].requester_limit: needs what happens past the amount: approvals: N, or refuse: true (one of them)',
    ]);
    expect(policyVersion(refusing)).not.toBe(policyVersion(parsePolicy(LIMIT, 'p')));
  });
});
