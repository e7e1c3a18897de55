import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PaymentRequest, RequestStatus, WriteIntent } from '../../src/domain/approval.ts';
import { addDecimal, compareDecimal, subtractDecimal } from '../../src/domain/decimal.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import {
  type ApproverSupply,
  approvalRefusal,
  approverShortage,
  DEFAULT_POLICY,
  type EarlierRequest,
  expiryMs,
  type Policy,
  PolicyError,
  parsePolicy,
  requiredApprovals,
  windowStart,
} from '../../src/domain/policy.ts';
import { said } from '../helpers/refusals.ts';

const TWO_FOR_BIG_USD_PAYOUTS = `
rules:
  - operations: [createPayout]
    currency: USD
    min_amount: "10000"
    approvals: 2
`;

function problems(text: string): string[] {
  return problemsOf(() => parsePolicy(text, 'policy.yaml'));
}

function problemsOf(load: () => Policy): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  throw new Error('expected the policy to be refused');
}

function intent(operationId: WriteOperationId, fields: Record<string, string> = {}): WriteIntent {
  return { operationId, path: {}, fields };
}

function payout(amount: string, currency = 'USD'): WriteIntent {
  return intent('createPayout', { wallet_id: 'wal_1', amount, currency });
}

/** Approvals a request needs by its own amount, no earlier request counted. */
function needs(policy: Policy, write: WriteIntent): number {
  return requiredApprovals(policy, write).approvals;
}

describe('policy file', () => {
  it('by default, one approval and 24 hours', () => {
    expect(DEFAULT_POLICY).toEqual({ defaultApprovals: 1, expiryHours: 24, rules: [] });
    expect(expiryMs(DEFAULT_POLICY)).toBe(24 * 3_600_000);
  });

  it('reads the documented example, naming operations by id or /pay word in any case', () => {
    const policy = parsePolicy(
      `default_approvals: 1
expiry_hours: 48
rules:
  - operations: [createPayout, Transfer]
    currency: usd
    min_amount: "10000"
    approvals: 2
  - approvals: 3
    operations: [CREATEWALLET]
`,
      'policy.yaml',
    );
    expect(policy).toEqual({
      defaultApprovals: 1,
      expiryHours: 48,
      rules: [
        {
          operations: new Set(['createPayout', 'createTransfer']),
          currencies: new Set(['USD']),
          minAmount: '10000',
          window: undefined,
          approvals: 2,
        },
        {
          operations: new Set(['createWallet']),
          currencies: undefined,
          minAmount: undefined,
          window: undefined,
          approvals: 3,
        },
      ],
    });
    expect(expiryMs(policy)).toBe(48 * 3_600_000);
  });

  it('refuses an empty file rather than fall back to the defaults', () => {
    expect(problems('')).toEqual([
      'the file is empty: write at least `rules: []`, or unset PAYOPS_POLICY_FILE for the defaults',
    ]);
    expect(problems('# only a comment\n')).toHaveLength(1);
  });

  it('refuses text that is not YAML, duplicate keys, and a document that is not a mapping', () => {
    expect(problems('rules: [')[0]).toMatch(/^not valid YAML or JSON: .* at line 1, column 9$/);
    expect(problems('default_approvals: 1\ndefault_approvals: 2\n')[0]).toMatch(
      /^not valid YAML or JSON: Map keys must be unique/,
    );
    expect(problems('[1, 2]')).toEqual([
      'the policy must be a mapping with default_approvals, expiry_hours and rules',
    ]);
  });

  it('lists every problem at once, each at its place', () => {
    expect(
      problems(`
default_approvals: 9
expiry_hours: 0.5
colour: blue
rules:
  - operations: [paymnt, getMe, 3]
    currency: US$
    min_amount: "1,000"
    approvals: 0
    note: x
  - operations: []
    approvals: "2"
`),
    ).toEqual([
      'default_approvals: must be a whole number from 1 to 5',
      'expiry_hours: must be a whole number from 1 to 168',
      'rules[0].operations[0]: `paymnt` is not a write operation (did you mean createPayout (payout)?); name operations by id (createPayout) or by command word (payout)',
      'rules[0].operations[1]: `getMe` is a read, and reads need no approval; name operations by id (createPayout) or by command word (payout)',
      'rules[0].operations[2]: must name operations by id (createPayout) or by command word (payout)',
      'rules[0].currency: `US$` is not a currency code: write one code of 3 to 6 letters, like USD, or a list, like [USD, USDC]',
      'rules[0].min_amount: must be a plain decimal in quotes, like "10000" or "2500.50" (no commas, sign or exponent)',
      'rules[0].approvals: must be a whole number from 1 to 5',
      'rules[0]: unknown key note; the known keys are operations, currency, min_amount, window, approvals, steps, same_person_may_fill_steps, over_cap, approver_limits, requester_limit',
      'rules[1].operations: is empty: leave it out to mean every write',
      'rules[1].approvals: must be a whole number from 1 to 5',
      'unknown key colour; the known keys are default_approvals, expiry_hours, rules',
    ]);
  });

  it('refuses min_amount written as a number, because a float can change it', () => {
    for (const amount of ['10000', '10000.10', '12345678901234567890']) {
      expect(
        problems(`rules:\n  - currency: USD\n    min_amount: ${amount}\n    approvals: 2\n`),
      ).toEqual([
        'rules[0].min_amount: must be quoted, like min_amount: "10000" — an unquoted number is read as a binary float, which can silently change it (10000.10 is read as 10000.1, 12345678901234567890 as 12345678901234567000)',
      ]);
    }
    expect(
      problems('{"rules": [{"currency": "USD", "min_amount": 5, "approvals": 2}]}'),
    ).toHaveLength(1);
  });

  it('refuses min_amount without a currency: amounts in different currencies do not compare', () => {
    expect(problems('rules:\n  - min_amount: "10000"\n    approvals: 2\n')).toEqual([
      'rules[0].min_amount: needs a currency: amounts in different currencies cannot be compared',
    ]);
  });

  it('refuses a rule asking fewer approvals than the default: rules only raise the count', () => {
    expect(problems('default_approvals: 3\nrules:\n  - approvals: 2\n  - approvals: 3\n')).toEqual([
      'rules[0].approvals: is 2, below default_approvals (3): a rule can only raise the number of approvals, never lower it',
    ]);
  });
});

describe('requiredApprovals', () => {
  const policy = parsePolicy(TWO_FOR_BIG_USD_PAYOUTS, 'policy.yaml');

  it('payouts of 10,000 USD or more need 2 distinct approvers', () => {
    expect(needs(policy, payout('9999.99'))).toBe(1);
    expect(needs(policy, payout('10000'))).toBe(2);
    expect(needs(policy, payout('10000.00'))).toBe(2);
    expect(needs(policy, payout('250000'))).toBe(2);
  });

  it('compares the currency case-insensitively and exactly: USDC is not USD', () => {
    expect(needs(policy, payout('20000', 'usd'))).toBe(2);
    expect(needs(policy, payout('20000', 'USDC'))).toBe(1);
    expect(needs(policy, payout('20000', 'EUR'))).toBe(1);
  });

  it('applies a rule only to the operations it names', () => {
    const transfer = intent('createTransfer', { amount: '20000', source_currency: 'USD' });
    expect(needs(policy, transfer)).toBe(1);
  });

  it('takes the largest of the default and every matching rule', () => {
    const layered = parsePolicy(
      `default_approvals: 2
rules:
  - currency: USD
    min_amount: "1000"
    approvals: 3
  - operations: [payout]
    currency: USD
    min_amount: "100000"
    approvals: 5
  - operations: [transfer]
    approvals: 4
`,
      'policy.yaml',
    );
    expect(needs(layered, payout('10'))).toBe(2);
    expect(needs(layered, payout('1000'))).toBe(3);
    expect(needs(layered, payout('100000'))).toBe(5);
    expect(needs(layered, intent('createWallet', { chain: 'base' }))).toBe(2);
  });

  it('reads the currency of a transfer from source_currency', () => {
    const rules = parsePolicy(
      'rules:\n  - currency: USDC\n    min_amount: "500"\n    approvals: 2\n',
      'policy.yaml',
    );
    const transfer = (amount: string) =>
      intent('createCryptoTransfer', {
        amount,
        source_currency: 'USDC',
        destination_currency: 'EUR',
      });
    expect(needs(rules, transfer('499.999'))).toBe(1);
    expect(needs(rules, transfer('500'))).toBe(2);
  });

  it('a request without a currency matches only rules without currency or min_amount', () => {
    const rules = parsePolicy(
      `rules:
  - currency: USD
    approvals: 2
  - currency: USD
    min_amount: "0"
    approvals: 3
  - operations: [deactivate-recipient]
    approvals: 4
`,
      'policy.yaml',
    );
    expect(needs(rules, intent('createWallet', { chain: 'base' }))).toBe(1);
    expect(needs(rules, intent('deactivateRecipient'))).toBe(4);
  });

  it('a request with a currency but no amount matches rules with that currency and no min_amount', () => {
    const rules = parsePolicy(
      'rules:\n  - currency: USD\n    approvals: 2\n  - currency: USD\n    min_amount: "0"\n    approvals: 3\n',
      'policy.yaml',
    );
    const route = intent('createPaymentRoute', { wallet_id: 'wal_1', source_currency: 'USD' });
    expect(needs(rules, route)).toBe(2);
  });

  it('agrees with compareDecimal for amounts around the threshold (never floats)', () => {
    const STEP = '0.000000000000000001';
    const decimal = fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** 22n }), fc.integer({ min: 0, max: 18 }))
      .map(([units, scale]) => {
        const digits = units.toString().padStart(scale + 1, '0');
        return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
      });
    // The threshold itself, at another scale, and one smallest step either side of it.
    const around = (threshold: string) =>
      fc.oneof(
        decimal,
        fc.constantFrom(
          threshold,
          `${threshold}${threshold.includes('.') ? '0' : '.0'}`,
          addDecimal(threshold, STEP),
          compareDecimal(threshold, STEP) > 0 ? subtractDecimal(threshold, STEP) : STEP,
        ),
      );
    fc.assert(
      fc.property(
        decimal.chain((threshold) => fc.tuple(fc.constant(threshold), around(threshold))),
        ([threshold, amount]) => {
          const rule: Policy = {
            defaultApprovals: 1,
            expiryHours: 24,
            rules: [
              {
                operations: undefined,
                currencies: new Set(['USD']),
                minAmount: threshold,
                window: undefined,
                approvals: 2,
              },
            ],
          };
          expect(needs(rule, payout(amount))).toBe(compareDecimal(amount, threshold) >= 0 ? 2 : 1);
        },
      ),
    );
  });
});

describe('currency lists', () => {
  const stable = parsePolicy(
    'rules:\n  - currency: [USD, usdc]\n    min_amount: "10000"\n    approvals: 2\n',
    'policy.yaml',
  );

  it('a rule listing several currencies catches each of them, in any case', () => {
    expect(stable.rules[0]?.currencies).toEqual(new Set(['USD', 'USDC']));
    expect(needs(stable, payout('10000', 'USD'))).toBe(2);
    expect(needs(stable, payout('10000', 'USDC'))).toBe(2);
    expect(needs(stable, payout('10000', 'usdc'))).toBe(2);
    expect(needs(stable, payout('9999.99', 'USDC'))).toBe(1);
  });

  it('a currency no rule names gets the default: EUR, and USDT next to [USD, USDC]', () => {
    expect(needs(stable, payout('1000000', 'EUR'))).toBe(1);
    expect(needs(stable, payout('1000000', 'USDT'))).toBe(1);
  });

  it('refuses an empty list and names an entry that is not a code', () => {
    expect(problems('rules:\n  - currency: []\n    approvals: 2\n')).toEqual([
      'rules[0].currency: is empty: leave it out to mean any currency',
    ]);
    expect(problems('rules:\n  - currency: [USD, US DC]\n    approvals: 2\n')).toEqual([
      'rules[0].currency: `US DC` is not a currency code: write one code of 3 to 6 letters, like USD, or a list, like [USD, USDC]',
    ]);
    expect(problems('rules:\n  - currency: [USD, 5]\n    approvals: 2\n')).toHaveLength(1);
  });
});

describe('a window adds up earlier requests to the same payee', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const policy = parsePolicy(
    `rules:
  - operations: [payout]
    currency: [USD, USDC]
    min_amount: "10000"
    window: 24h
    approvals: 2
`,
    'policy.yaml',
  );
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
  const earlier = (
    amount: string,
    hours: number,
    currency = 'USD',
    operationId: WriteOperationId = 'createPayout',
  ): EarlierRequest => ({
    operationId,
    body: JSON.stringify({ wallet_id: 'wal_1', amount, currency }),
    createdAt: hoursAgo(hours),
  });

  it('reads the window, and refuses one without min_amount or of another form', () => {
    expect(policy.rules[0]?.window).toEqual({ text: '24h', ms: 24 * 3_600_000 });
    expect(
      parsePolicy(
        'rules:\n  - currency: USD\n    min_amount: "1"\n    window: 30m\n    approvals: 2\n',
        'p',
      ).rules[0]?.window,
    ).toEqual({ text: '30m', ms: 1_800_000 });
    expect(problems('rules:\n  - currency: USD\n    window: 24h\n    approvals: 2\n')).toEqual([
      'rules[0].window: needs min_amount: a window adds up amounts toward a threshold',
    ]);
    const wrong =
      'must be a span from 1 minute to 31 days in minutes, hours or days, like 30m, 24h or 7d';
    for (const window of ['24', '1.5h', '2w', '0m', '32d', '"-1h"', '86400']) {
      expect(
        problems(
          `rules:\n  - currency: USD\n    min_amount: "1"\n    window: ${window}\n    approvals: 2\n`,
        ),
      ).toEqual([`rules[0].window: ${wrong}`]);
    }
  });

  it('two payouts under the threshold that reach it together need the approvals of the whole', () => {
    const split = payout('4000.50', 'USD');
    expect(needs(policy, split)).toBe(1);
    const together = requiredApprovals(policy, split, {
      earlier: [earlier('3000', 5), earlier('3000.00', 23, 'usdc')],
      now,
    });
    expect(together).toEqual({
      approvals: 2,
      windowRaised: {
        window: '24h',
        total: '10000.50',
        currencies: ['USD', 'USDC'],
        threshold: '10000',
        requests: 2,
      },
    });
  });

  it('counts only earlier requests within the window, of the currencies and operations it names', () => {
    const split = payout('6000', 'USD');
    const outside = [
      earlier('6000', 24.01),
      earlier('6000', 1, 'EUR'),
      earlier('6000', 1, 'USD', 'createTransfer'),
    ];
    expect(requiredApprovals(policy, split, { earlier: outside, now })).toEqual({
      approvals: 1,
      windowRaised: undefined,
    });
    expect(
      requiredApprovals(policy, split, { earlier: [earlier('4000', 24)], now }).approvals,
    ).toBe(2);
  });

  it('says nothing of the window when the amount alone needs as many', () => {
    expect(
      requiredApprovals(policy, payout('10000'), { earlier: [earlier('5000', 1)], now }),
    ).toEqual({ approvals: 2, windowRaised: undefined });
  });

  it('a rule without a window never adds up', () => {
    const plain = parsePolicy(TWO_FOR_BIG_USD_PAYOUTS, 'policy.yaml');
    expect(
      requiredApprovals(plain, payout('6000'), { earlier: [earlier('6000', 1)], now }).approvals,
    ).toBe(1);
  });

  it('looks back as far as the longest window of the rules that name the write', () => {
    const two = parsePolicy(
      `rules:
  - currency: USD
    min_amount: "1"
    window: 7d
    approvals: 2
  - operations: [transfer]
    currency: USD
    min_amount: "1"
    window: 30d
    approvals: 3
`,
      'policy.yaml',
    );
    expect(windowStart(two, payout('1'), now)).toEqual(new Date(now.getTime() - 7 * 86_400_000));
    expect(windowStart(two, payout('1', 'EUR'), now)).toBeUndefined();
    expect(windowStart(policy, intent('createWallet', { chain: 'base' }), now)).toBeUndefined();
  });
});

describe('approverShortage', () => {
  const policy = parsePolicy(
    'default_approvals: 1\nrules:\n  - approvals: 2\n  - operations: [payout]\n    approvals: 3\n',
    'policy.yaml',
  );
  const supply = (over: Partial<ApproverSupply>): ApproverSupply => ({
    approvers: 3,
    approverMayRequest: false,
    unlisted: [],
    ...over,
  });

  it('passes when the highest rule can be met', () => {
    expect(approverShortage(policy, supply({}))).toBeUndefined();
    expect(
      approverShortage(policy, supply({ approvers: 4, approverMayRequest: true })),
    ).toBeUndefined();
  });

  it('names the highest rule and the count when it cannot', () => {
    expect(approverShortage(policy, supply({ approvers: 2 }))).toEqual({
      message:
        "the policy's rules[1] needs 3 approvals from distinct people, but PAYOPS_APPROVERS can supply 2 (2 approvers)",
      certain: true,
    });
  });

  it('counts one fewer when an approver may also request: nobody approves their own request', () => {
    expect(approverShortage(policy, supply({ approverMayRequest: true }))?.message).toBe(
      "the policy's rules[1] needs 3 approvals from distinct people, but PAYOPS_APPROVERS can supply 2 (3 approvers, one fewer on a request made by an approver, who cannot approve their own)",
    );
    expect(
      approverShortage(DEFAULT_POLICY, supply({ approvers: 1, approverMayRequest: true }))?.message,
    ).toMatch(
      /^the policy's default_approvals needs 1 approval from distinct people, but PAYOPS_APPROVERS can supply 0/,
    );
  });

  it('is not certain when Slack could not list a group', () => {
    expect(approverShortage(policy, supply({ approvers: 1, unlisted: ['S0APPROVERS'] }))).toEqual({
      message:
        "the policy's rules[1] needs 3 approvals from distinct people, but PAYOPS_APPROVERS can supply 1 (1 approver); the members of S0APPROVERS were not counted, as Slack could not list them",
      certain: false,
    });
  });
});

describe('approvalRefusal', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const pending: Pick<PaymentRequest, 'requesterId' | 'status' | 'approvals' | 'expiresAt'> = {
    requesterId: 'U_REQUESTER',
    status: 'pending',
    approvals: [],
    expiresAt: '2026-01-02T12:00:00Z',
  };

  it('lets a second person approve a pending request', () => {
    expect(said(approvalRefusal(pending, 'U_APPROVER', now))).toBeUndefined();
  });

  it('never lets the requester approve their own request', () => {
    expect(said(approvalRefusal(pending, 'U_REQUESTER', now))).toBe(
      'You requested this, so you cannot approve it: a second person must.',
    );
  });

  it('counts one person’s approval once', () => {
    const approved = { ...pending, approvals: [{ userId: 'U_APPROVER', at: now.toISOString() }] };
    expect(said(approvalRefusal(approved, 'U_APPROVER', now))).toBe(
      "You have already approved this request; one person's approval counts once.",
    );
    expect(said(approvalRefusal(approved, 'U_OTHER', now))).toBeUndefined();
  });

  it('refuses a request that is no longer pending, saying what became of it', () => {
    const statuses: RequestStatus[] = [
      'executing',
      'submitted',
      'failed',
      'unknown',
      'rejected',
      'cancelled',
      'expired',
    ];
    for (const status of statuses) {
      expect(said(approvalRefusal({ ...pending, status }, 'U_APPROVER', now))).toMatch(
        /^This request .+, so it can no longer be approved\.$/,
      );
    }
    expect(said(approvalRefusal({ ...pending, status: 'rejected' }, 'U_APPROVER', now))).toBe(
      'This request was rejected, so it can no longer be approved.',
    );
  });

  it('refuses once the expiry time is reached, and when the expiry is unreadable', () => {
    const expired =
      'This request has expired, so it can no longer be approved: ask for a new request.';
    const justBefore = new Date(Date.parse(pending.expiresAt) - 1);
    expect(said(approvalRefusal(pending, 'U_APPROVER', justBefore))).toBeUndefined();
    expect(said(approvalRefusal(pending, 'U_APPROVER', new Date(pending.expiresAt)))).toBe(expired);
    expect(said(approvalRefusal({ ...pending, expiresAt: 'soon' }, 'U_APPROVER', now))).toBe(
      expired,
    );
  });
});
