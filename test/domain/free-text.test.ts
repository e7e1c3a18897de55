import { describe, expect, it } from 'vitest';
import {
  checkFreeText as checkFreeTextOf,
  cleanFreeText,
  cutFreeText,
} from '../../src/domain/free-text.ts';
import { freeTextProblemText } from '../../src/slack/text/commands.ts';

/** The check as the person is told it: `what` names the text in the refusal. */
function checkFreeText(text: string, what: string): { text: string } | { error: string } {
  const checked = checkFreeTextOf(text);
  return 'error' in checked ? { error: freeTextProblemText(what, checked.error) } : checked;
}

describe('free text people give payops', () => {
  it('drops control characters but line breaks and tabs, and trims', () => {
    expect(cleanFreeText('  out\u0000age\u0007 on\u009b the\tprovider\r\nside \u007f ')).toBe(
      'outage on the\tprovider\nside',
    );
  });

  it('replaces half a surrogate pair, keeps whole ones', () => {
    expect(cleanFreeText('a\uD800b \uDC00 😀')).toBe('a\uFFFDb \uFFFD 😀');
  });

  it('refuses over-long text with a message saying how long and the limit', () => {
    expect(checkFreeText(` ${'x'.repeat(500)}\u0000 `, 'note')).toEqual({ text: 'x'.repeat(500) });
    expect(checkFreeText('x'.repeat(501), 'note')).toEqual({
      error: 'The note is 501 characters long; at most 500. Shorten it and try again.',
    });
  });

  it('cuts to the limit, never inside a surrogate pair, and says it cut', () => {
    expect(cutFreeText('short\u0000', 10)).toEqual({ text: 'short', cut: false });
    expect(cutFreeText(`${'x'.repeat(9)}😀`, 10)).toEqual({ text: 'x'.repeat(9), cut: true });
  });
});
