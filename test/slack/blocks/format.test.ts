import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  code,
  dateText,
  escapeMrkdwn,
  inlineText,
  joinWithin,
  textWithMentions,
  truncate,
} from '../../../src/slack/blocks/format.ts';

describe('format helpers', () => {
  it('escaping turns Slack control characters into entities, `&` first', () => {
    expect(escapeMrkdwn('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
  });

  it('truncation never exceeds the limit nor leaves half an escape, token or surrogate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.nat(220), (raw, max) => {
        const cut = truncate(escapeMrkdwn(raw), Math.max(1, max));
        expect(cut.length).toBeLessThanOrEqual(Math.max(1, max));
        expect(cut).not.toMatch(/&[a-z]{0,3}…$/);
        expect(cut).not.toMatch(/[\uD800-\uDBFF]…$/);
      }),
    );
    expect(truncate('see <@U123ABC> now', 9)).toBe('see …');
  });

  it('joining stays within its limit and marks what was left out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40 })),
        fc.integer({ min: 5, max: 200 }),
        (parts, max) => {
          expect(joinWithin(parts, ' · ', max).length).toBeLessThanOrEqual(max);
        },
      ),
    );
    expect(joinWithin(['aaaa', 'bbbb', 'cccc'], ', ', 12)).toBe('aaaa, …');
    expect(joinWithin(['aaaa', 'bbbb'], ', ', 10)).toBe('aaaa, bbbb');
  });

  it('inline text is one line, escaped and cut', () => {
    expect(inlineText('  a\n\tb <x>  ')).toBe('a b &lt;x&gt;');
    expect(inlineText('y'.repeat(500), 10)).toHaveLength(10);
  });

  it('code style survives backticks in the value', () => {
    expect(code('a`b')).toBe('`aˋb`');
  });

  it('only ISO timestamps with a zone become date tokens, with the exact text as fallback', () => {
    expect(dateText('2025-01-14T09:12:44.000Z')).toBe(
      '<!date^1736845964^{date_short_pretty} {time_secs}|2025-01-14T09:12:44.000Z>',
    );
    expect(dateText('2025-01-14T10:12:44+01:00')).toContain('<!date^1736845964^');
    for (const value of ['2025-01-14', '2025-01-14T09:12:44', '2025-13-45T99:00:00Z', 'soon']) {
      expect(dateText(value)).toBeUndefined();
    }
  });

  it('configured text keeps Slack mentions live and escapes everything else', () => {
    expect(textWithMentions('<@U024BE7LH|ana> & <!here>')).toBe(
      '<@U024BE7LH|ana> &amp; &lt;!here&gt;',
    );
    expect(textWithMentions('C0123ABC')).toBe('<#C0123ABC>');
    expect(textWithMentions('the finance team')).toBe('the finance team');
  });
});
