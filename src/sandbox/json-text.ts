/**
 * The sandbox's replies as JSON text. A provider may write amounts as JSON numbers; the sandbox
 * keeps every amount a decimal string and writes a `JsonNumber` as that string's digits, so the
 * number token on the wire is exactly the amount (`1250.50`, never the float `1250.5`).
 */

/** A decimal written into a reply as a JSON number token. */
export class JsonNumber {
  constructor(readonly digits: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(digits)) {
      throw new RangeError(`not a JSON number: ${digits}`);
    }
  }
}

/** `JSON.stringify(value)` (a `Date` too), with each `JsonNumber` written as its digits. */
export function jsonText(value: unknown): string {
  if (value instanceof JsonNumber) return value.digits;
  const { toJSON } = (value ?? {}) as { toJSON?: unknown };
  if (typeof toJSON === 'function') return jsonText(toJSON.call(value));
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).flatMap(([key, item]) =>
      item === undefined ? [] : [`${JSON.stringify(key)}:${jsonText(item)}`],
    );
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
