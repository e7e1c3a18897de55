import { describe, expect, it } from 'vitest';
import { renderRequestResult } from '../../../src/slack/text/approvals.ts';

const SPEAKING = { accessAdmin: '<@U0ADMIN>', command: '/payments' };

describe('renderRequestResult', () => {
  it('a request whose payee window kept changing is not requested, and says to send it again', () => {
    const answer = renderRequestResult(SPEAKING, { kind: 'window_busy' }, 'createPayout');
    expect(answer?.text).toBe(
      ':no_entry: *Not requested, nothing stored:* other requests to the same payee were being made at the same moment, so the approvals it needs could not be counted. Send it again.',
    );
  });

  it('a request a pre-flight check refused says what the refusing checks found, then every check', () => {
    const refusing = [
      {
        name: 'wallet' as const,
        outcome: 'failed' as const,
        certain: true,
        finding: { code: 'no_wallet' as const, walletId: 'wal_nobody' },
      },
    ];
    const answer = renderRequestResult(
      SPEAKING,
      { kind: 'refused', refusing, checks: refusing },
      'createPayout',
    );
    expect(answer?.text).toBe(
      ':no_entry: *Not requested, nothing stored:* the provider has no wallet wal_nobody.',
    );
    expect(JSON.stringify(answer?.blocks)).toContain(
      ':warning: *Wallet:* the provider has no wallet wal_nobody',
    );
  });
});
