import { describe, expect, it } from 'vitest';
import { outcomeWords } from '../../../src/slack/text/outcomes.ts';
import { providerErrorText } from '../../../src/slack/text/provider-errors.ts';

const words = outcomeWords('/payments');

describe('what payops says of an outcome it decided', () => {
  it('a freeze before sending names the command as configured', () => {
    const told = words({ code: 'frozen', freezeReason: 'incident 42' });
    expect(told).toBe(
      'Payments were frozen (incident 42) before it was sent: nothing was sent. Make a new request after /payments unfreeze.',
    );
    expect(words({ code: 'frozen', freezeReason: undefined })).toContain('(no reason given)');
  });

  it('a balance too low, or not compared, says what the balance read right before sending found', () => {
    const balance = {
      name: 'balance' as const,
      outcome: 'failed' as const,
      finding: {
        code: 'insufficient' as const,
        available: '37.75',
        currency: 'USDC',
        requested: '40.00',
      },
    };
    expect(words({ code: 'balance_too_low', balance })).toBe(
      "The wallet's balance is now too low (37.75 USDC available, less than the 40.00 requested): nothing was sent. Make a new request when the funds are there.",
    );
    expect(
      words({
        code: 'balance_unchecked',
        balance: {
          name: 'balance',
          outcome: 'unchecked',
          finding: { code: 'balance_timed_out' },
        },
      }),
    ).toBe(
      'The balance was not compared right before sending (no answer in time): it was sent as approved.',
    );
  });

  it("a provider error is told in the provider errors' words", () => {
    const error = { code: 'payments.rejected' as const, status: 422, providerCode: 'INVALID' };
    expect(words({ code: 'provider_error', error })).toBe(providerErrorText(error));
  });
});
