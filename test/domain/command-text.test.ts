import { describe, expect, it } from 'vitest';
import { decodeSlackText } from '../../src/domain/command-text.ts';

describe('slash-command text as Slack sends it', () => {
  it('undoes the three escapes Slack makes, once', () => {
    expect(decodeSlackText('Smith &amp; Sons &lt;UK&gt;')).toBe('Smith & Sons <UK>');
    // A typed `&lt;` arrives as `&amp;lt;` and stays `&lt;`.
    expect(decodeSlackText('&amp;lt; &amp;amp;')).toBe('&lt; &amp;');
  });

  it('leaves every other entity and bare ampersands alone', () => {
    expect(decodeSlackText('&quot;a&quot; & b &#39; &AMP;')).toBe('&quot;a&quot; & b &#39; &AMP;');
  });
});
