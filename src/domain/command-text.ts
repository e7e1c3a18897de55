import { maskLongNumbers } from './masking.ts';
/**
 * Splits the text typed after a slash command into words, `field=value` pairs and `--flags`.
 * Values may be quoted with straight or typographic quotes (Slack clients often turn `"`
 * into `“ ”`). Never throws: bad text yields a `TextError` saying what is wrong and where.
 */

export type Token =
  | { kind: 'word'; value: string }
  | { kind: 'field'; name: string; value: string }
  | { kind: 'flag'; name: string; value: string | undefined };

/** What is wrong with a command's text as a whole; worded on the Slack side. */
export type TextProblem =
  | { code: 'too_long'; length: number; max: number }
  | { code: 'control_characters' }
  | { code: 'invalid_option'; option: string }
  | { code: 'invalid_field_name'; name: string }
  | { code: 'unclosed_quote'; quote: string };

export interface TextError {
  error: TextProblem;
}

/** Longer than any real command; Slack itself allows a few thousand characters. */
export const MAX_COMMAND_TEXT = 4000;

const CLOSING_QUOTE: Record<string, string> = { '"': '"', "'": "'", '“': '”', '‘': '’', '„': '“' };
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FLAG_NAME = /^[a-z][a-z0-9-]*$/;

const SLACK_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

/**
 * A slash command's text as the person typed it. Slack sends `&`, `<` and `>` as `&amp;`,
 * `&lt;` and `&gt;`; undone in one pass, so `&amp;lt;` (a typed `&lt;`) stays `&lt;`, and the
 * value matches the same value typed in a form.
 */
export function decodeSlackText(text: string): string {
  return text.replace(/&(?:amp|lt|gt);/g, (entity) => SLACK_ENTITIES[entity] ?? entity);
}

export function tokenize(text: string): Token[] | TextError {
  if (text.length > MAX_COMMAND_TEXT) {
    return { error: { code: 'too_long', length: text.length, max: MAX_COMMAND_TEXT } };
  }
  // Control characters have no business in a command; refuse rather than pass them upstream.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point here.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
    return { error: { code: 'control_characters' } };
  }
  const raw = splitQuoted(text);
  if ('error' in raw) return raw;
  const tokens: Token[] = [];
  for (const { text: piece, quoted } of raw.pieces) {
    if (quoted) {
      tokens.push({ kind: 'word', value: piece });
      continue;
    }
    if (piece.startsWith('--')) {
      const [name = '', ...rest] = piece.slice(2).split('=');
      if (!FLAG_NAME.test(name)) return { error: { code: 'invalid_option', option: piece } };
      tokens.push({ kind: 'flag', name, value: rest.length > 0 ? rest.join('=') : undefined });
      continue;
    }
    const equals = piece.indexOf('=');
    if (equals > 0) {
      const name = piece.slice(0, equals);
      if (!FIELD_NAME.test(name)) {
        return { error: { code: 'invalid_field_name', name } };
      }
      tokens.push({ kind: 'field', name, value: piece.slice(equals + 1) });
      continue;
    }
    tokens.push({ kind: 'word', value: piece });
  }
  return tokens;
}

interface Piece {
  text: string;
  /** The whole piece was one quoted string, so it is a value, never a flag or a field. */
  quoted: boolean;
}

/** Splits on white space, keeping quoted runs together: `name="a b"` is one piece `name=a b`. */
function splitQuoted(text: string): { pieces: Piece[] } | TextError {
  const pieces: Piece[] = [];
  let current = '';
  let started = false;
  let wholeQuoted = false;
  let index = 0;
  const chars = [...text];
  while (index < chars.length) {
    const char = chars[index] as string;
    // A quote opens only where a value starts, so `O'Brien` keeps its apostrophe.
    const closing = !started || current.endsWith('=') ? CLOSING_QUOTE[char] : undefined;
    if (closing !== undefined) {
      const end = chars.indexOf(closing, index + 1);
      if (end === -1) return { error: { code: 'unclosed_quote', quote: char } };
      wholeQuoted = !started;
      current += chars.slice(index + 1, end).join('');
      started = true;
      index = end + 1;
      continue;
    }
    if (/\s/u.test(char)) {
      if (started) pieces.push({ text: current, quoted: wholeQuoted });
      current = '';
      started = false;
      wholeQuoted = false;
    } else {
      current += char;
      started = true;
      wholeQuoted = false;
    }
    index++;
  }
  if (started) pieces.push({ text: current, quoted: wholeQuoted });
  return { pieces };
}

/**
 * User text quoted back in a message: shortened, and any account-like number in it masked, since
 * people type one where it does not belong (an answer is still a Slack message).
 */
export function clip(text: string, max = 40): string {
  const masked = maskLongNumbers(text);
  return masked.length > max ? `${masked.slice(0, max)}…` : masked;
}
