import { describe, expect, it } from 'vitest';
import type { PreflightCheck } from '../../../src/domain/approval.ts';
import { findingText, refusingText } from '../../../src/slack/text/preflight.ts';

describe('what a pre-flight check found, in words', () => {
  it('a failed read names what payops could not read, then the provider error in its own words', () => {
    expect(
      findingText({
        code: 'read_failed',
        read: 'recipient',
        error: { code: 'payments.server_error', status: 503, requestId: 'req_9' },
      }),
    ).toBe(
      'could not read the recipient: The Payments API failed with an internal error (503): request id req_9. Try again in a moment.',
    );
    expect(findingText({ code: 'read_failed', read: 'corridors' })).toBe(
      'could not list corridors: payops failed to ask',
    );
  });

  it("a wallet's amounts are shown as the provider wrote them, their digits grouped", () => {
    const held = [
      { amount: '1250.50', currency: 'USDC' },
      { amount: '310.00', currency: 'USDT' },
    ];
    expect(
      findingText({ code: 'other_currencies', held, currency: 'EURC', what: 'transfer' }),
    ).toBe(
      'the wallet holds 1,250.50 USDC, 310.00 USDT; the transfer is in EURC: payops cannot compare them',
    );
    expect(
      findingText({
        code: 'insufficient',
        available: '37.75',
        currency: 'USDC',
        requested: '40.00',
      }),
    ).toBe('37.75 USDC available, less than the 40.00 requested');
  });

  it('the checks that refused a request are told one after another', () => {
    const refusing: PreflightCheck[] = [
      {
        name: 'wallet',
        outcome: 'failed',
        certain: true,
        finding: { code: 'no_wallet', walletId: 'wal_nobody' },
      },
      {
        name: 'recipient',
        outcome: 'failed',
        certain: true,
        finding: { code: 'no_recipient', recipientId: 'ea_nobody' },
      },
    ];
    expect(refusingText(refusing)).toBe(
      'the provider has no wallet wal_nobody; the provider has no recipient ea_nobody',
    );
  });
});
