import { BANKING_FIELDS, BENEFICIARY_FIELDS } from './operations.ts';

const MASK = '••••';

/** `••••1234`: enough for a person to recognise an account, not enough to use it. */
export function maskAccount(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  // An e-mail or phone-style key (PIX, say) leaks identity in its tail: show none of it.
  if (text.includes('@')) return MASK;
  const compact = text.replace(/[\s-]/g, '');
  return compact.length > 4 ? `${MASK}${compact.slice(-4)}` : MASK;
}

const SECRET_KEY = /api[-_]?key|authorization|token|secret|password|signature/i;

export type SensitiveKind = 'banking' | 'beneficiary' | 'secret';

/** `accountNumber`, `account-number` and `account_number` alike: `accountnumber`. */
function compactName(fieldName: string): string {
  return fieldName.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const BANKING_NAMES = new Set([...BANKING_FIELDS].map(compactName));
const BENEFICIARY_NAMES = new Set([...BENEFICIARY_FIELDS].map(compactName));
/**
 * Banking names the spec does not use but a provider's reply might (its shapes are not shown):
 * `accountNumber`, `bank_account` (whose nested fields are masked with it), `ibanCode`.
 */
const BANKING_NAME = /accountnumber|accountno$|^(bank)?account$|routing|iban|swift|sortcode|clabe/;

/** How a field of that name must be treated, judged by its name alone, however it is cased. */
export function sensitiveKind(fieldName: string): SensitiveKind | undefined {
  const name = compactName(fieldName);
  if (BANKING_NAMES.has(name) || BANKING_NAME.test(name)) return 'banking';
  if (BENEFICIARY_NAMES.has(name)) return 'beneficiary';
  if (SECRET_KEY.test(fieldName)) return 'secret';
  return undefined;
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` fit for a log line: banking fields become `••••1234`, beneficiary
 * identity and secrets become `[redacted]`, at any depth, and free text is scrubbed with
 * `redactSensitiveText`. Cycles and depth are bounded.
 */
export function redactForLog(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactSensitiveText(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return value;
  if (seen.has(value) || depth >= MAX_DEPTH) return '[…]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactForLog(item, depth + 1, seen));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const kind = sensitiveKind(key);
    if (kind === 'banking' && (typeof item === 'string' || typeof item === 'number')) {
      copy[key] = maskAccount(item);
    } else if (kind !== undefined && item !== null && item !== undefined) {
      copy[key] = '[redacted]';
    } else {
      copy[key] = redactForLog(item, depth + 1, seen);
    }
  }
  return copy;
}

const SENSITIVE_NAMES = [...BANKING_FIELDS, ...BENEFICIARY_FIELDS].join('|');
/**
 * `name=value`, `"name":"value"` or `name: value` inside free text (a slash command's text,
 * a request body Bolt logs at debug level): the value is replaced, whatever quoting is used.
 */
const SENSITIVE_IN_TEXT = new RegExp(
  `((?:${SENSITIVE_NAMES})\\\\?["']?\\s*(?:=|:|%3D)\\s*\\\\?)(?!\\[redacted\\])("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s"'&,;}\\]\\\\]+)`,
  'gi',
);

/**
 * Scrubs banking and beneficiary values written as `field=value` inside free text; a value
 * already `[redacted]` is left as it is, so scrubbing twice changes nothing.
 */
export function redactSensitiveText(text: string): string {
  return text.replace(SENSITIVE_IN_TEXT, (_match, prefix: string, value: string) => {
    const quote = value.startsWith('"') || value.startsWith("'") ? value[0] : '';
    return `${prefix}${quote}[redacted]${quote}`;
  });
}

/**
 * Digits inside an identifier are not a number: a word of letters, digits and `_` holds them
 * (`req_9922369a3db4dbec`, `a3db4dbec`, `wal_12`). UUIDs, whose groups are joined by hyphens,
 * are set apart whole.
 */
const IN_IDENTIFIER = String.raw`[\p{L}\p{N}_]`;
const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;

/** `DE89 3704 0044 0532 0130 00` or `DE89370400440532013000`: country, check digits, account. */
const IBAN_LIKE = new RegExp(
  String.raw`(?<!${IN_IDENTIFIER})[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)(?!${IN_IDENTIFIER})`,
  'gu',
);

/**
 * `0001 2345 6789`, `4111-1111-1111-1111`, `021-000-021`: groups of 3 to 6 digits joined by one
 * space or hyphen each; masked from 9 digits in all (a date's `2026-11-22` has 2-digit groups).
 */
const GROUPED_DIGITS = new RegExp(
  String.raw`(?<!${IN_IDENTIFIER}|-|\d\.)\d{3,6}(?:[ -]\d{3,6})+(?!${IN_IDENTIFIER}|-|\.\d)`,
  'gu',
);
const GROUPED_MIN_DIGITS = 9;

/** A run of 6 digits or more that is a word of its own; not an amount's `1250000.00`. */
const DIGIT_RUN = new RegExp(
  String.raw`(?<!${IN_IDENTIFIER}|\d\.)\d{6,}(?!${IN_IDENTIFIER}|\.\d)`,
  'gu',
);

/**
 * Banking numbers inside free text payops shows or stores but did not write (an account number
 * quoted in a provider's error message, a card number pasted in a reason) become `••••1234`:
 * runs of 6 digits or more, digit groups such as `0001 2345 6789`, IBAN-like codes. Identifiers
 * that hold digits (`req_9922369a3db4dbec`, a UUID) stay whole, as do an amount's digits
 * (`1250000.00`, `0.0000012`), which a person needs to read.
 */
export function maskLongNumbers(text: string): string {
  // Split around UUIDs (captured): the odd pieces are the UUIDs, kept as they are.
  return text
    .split(UUID)
    .map((piece, index) => (index % 2 === 1 ? piece : maskNumbersIn(piece)))
    .join('');
}

function maskNumbersIn(text: string): string {
  return text
    .replace(IBAN_LIKE, (code) => `${MASK}${code.replace(/ /g, '').slice(-4)}`)
    .replace(GROUPED_DIGITS, (groups) => {
      const digits = groups.replace(/\D/g, '');
      return digits.length >= GROUPED_MIN_DIGITS ? `${MASK}${digits.slice(-4)}` : groups;
    })
    .replace(DIGIT_RUN, (digits) => `${MASK}${digits.slice(-4)}`);
}
