/**
 * Free text people give payops (a freeze reason, a rejection reason, a resolve note): kept as
 * written, less what no record can hold. PostgreSQL refuses NUL in `text` and `\u0000` or a
 * lone surrogate in `jsonb`, so one such character would fail the whole action.
 */

/** Control characters (C0, DEL, C1) but line breaks and tabs, which a reason may well have. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point here.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Half of a surrogate pair without its other half: not a character at all. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Longer is a paste gone wrong, not a reason; what approval messages show whole. */
export const MAX_FREE_TEXT = 500;

/** Control characters dropped, broken characters replaced by `�`, then trimmed. */
export function cleanFreeText(text: string): string {
  return text.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD').trim();
}

/** Free text longer than its limit; worded on the Slack side with what the text is for. */
export interface FreeTextTooLong {
  code: 'too_long';
  length: number;
  max: number;
}

/** Cleaned, or refused when longer than `max`, with how long it is. */
export function checkFreeText(
  text: string,
  max = MAX_FREE_TEXT,
): { text: string } | { error: FreeTextTooLong } {
  const cleaned = cleanFreeText(text);
  if (cleaned.length <= max) return { text: cleaned };
  return { error: { code: 'too_long', length: cleaned.length, max } };
}

/**
 * Cleaned and cut to `max` (never inside a surrogate pair): for text that must never make its
 * action fail, such as the reason of the kill switch.
 */
export function cutFreeText(text: string, max: number): { text: string; cut: boolean } {
  const cleaned = cleanFreeText(text);
  if (cleaned.length <= max) return { text: cleaned, cut: false };
  return {
    text: cleaned
      .slice(0, max)
      .replace(/[\uD800-\uDBFF]$/, '')
      .trimEnd(),
    cut: true,
  };
}
