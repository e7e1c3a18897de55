import { describe, expect, it } from 'vitest';
import { registerSecrets, scrub, scrubDetail, withoutSecrets } from '../../src/domain/scrub.ts';

const KEY = 'sk_live_scrub_test_4f9a27c1e0';
registerSecrets([KEY, 'xoxb-scrub-test-token', 'short']);

describe('scrub: the one scrubber for free text payops shows, stores or exports', () => {
  it('removes a registered secret however it is spelt: raw, JSON-escaped or URL-encoded', () => {
    const quoted = 'se"cr\\et-value-1';
    registerSecrets([quoted]);
    expect(scrub(`invalid key ${KEY} for this business`)).toBe(
      'invalid key [redacted] for this business',
    );
    expect(scrub(`{"detail":"${JSON.stringify(quoted).slice(1, -1)}"}`)).not.toContain('cr\\\\et');
    expect(scrub(`?key=${encodeURIComponent(quoted)}`)).toBe('?key=[redacted]');
    expect(scrub('token xoxb-scrub-test-token leaked')).toBe('token [redacted] leaked');
  });

  it('ignores values too short to be secrets, which would match ordinary words', () => {
    expect(scrub('a short note')).toBe('a short note');
  });

  it('masks account-like numbers and `field=value` banking details, keeps amounts', () => {
    expect(scrub('wrong account 000123456789, limit 1250000.00')).toBe(
      'wrong account ••••6789, limit 1250000.00',
    );
    expect(scrub('beneficiary_name="Jane Roe" is wrong')).toBe(
      'beneficiary_name="[redacted]" is wrong',
    );
  });

  it('is idempotent: scrubbing stored text again changes nothing', () => {
    const once = scrub(`key ${KEY} account 000123456789 account_number=42`);
    expect(scrub(once)).toBe(once);
  });

  it('withoutSecrets leaves numbers alone: ids and timestamps in an audit detail stay whole', () => {
    expect(withoutSecrets(`po_000123456789 ${KEY}`)).toBe('po_000123456789 [redacted]');
  });

  it('scrubDetail scrubs the free-text values of an audit detail at any depth, and only them', () => {
    expect(
      scrubDetail({
        reason: 'account 000123456789',
        providerId: 'po_000123456789',
        late: { message: `echo ${KEY} 000123456789`, code: KEY },
        list: [KEY],
        count: 3,
      }),
    ).toEqual({
      reason: 'account ••••6789',
      providerId: 'po_000123456789',
      late: { message: 'echo [redacted] ••••6789', code: '[redacted]' },
      list: ['[redacted]'],
      count: 3,
    });
  });
});
