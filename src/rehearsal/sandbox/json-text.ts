/**
 * The sandbox's replies as JSON text. A provider may write amounts as JSON numbers; the sandbox
 * keeps every amount a decimal string and writes a `JsonNumber` as that string's digits, so the
 * number token on the wire is exactly the amount (`1250.50`, never the float `1250.5`).
 */
import { randomHex } from './random-hex.ts';

/**
 * What a `JsonNumber` is first written as, then replaced: a NUL (escaped in JSON text, so no
 * string a client sent can end up spelling it unescaped) and a nonce of this process.
 */
const MARK = `\u0000${randomHex(8)}:`;
const ESCAPED_MARK = JSON.stringify(MARK).slice(1, -1);
const MARKED = new RegExp(`"${ESCAPED_MARK.replaceAll('\\', '\\\\')}(-?[0-9.]+)"`, 'g');

/** A decimal written into a reply as a JSON number token. */
export class JsonNumber {
  constructor(readonly digits: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(digits)) {
      throw new RangeError(`not a JSON number: ${digits}`);
    }
  }

  toJSON(): string {
    return `${MARK}${this.digits}`;
  }
}

/**
 * `JSON.stringify(value)`, with each `JsonNumber` written as its digits. The native stringify
 * does the work (the benchmark's sandbox shares its cores with the bot it measures).
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes(ESCAPED_MARK) ? text.replace(MARKED, '$1') : text;
}
