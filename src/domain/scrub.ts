import { maskLongNumbers, redactSensitiveText } from './masking.ts';

/**
 * The one scrubber for free text payops shows, stores or exports but did not write itself: a
 * provider's error message, a rejection reason, a resolve note, a freeze reason, a write's
 * purpose. It removes the process's secret values, `field=value` banking and beneficiary
 * details, and account-like numbers. Identifiers and the values of a request are never passed
 * through it: an approver must see those exactly as they are sent.
 */

const REDACTED = '[redacted]';
/** Shorter values would also match ordinary words; every real secret is far longer. */
const MIN_SECRET_LENGTH = 6;

const secrets = new Set<string>();

/**
 * Registers the values no text may carry (the Payments API key, Slack tokens, the signing
 * secret), once at startup. Registered values stay registered: forgetting one is never safe.
 */
export function registerSecrets(values: readonly string[]): void {
  for (const spelling of secretSpellings(values)) secrets.add(spelling);
}

/**
 * Every way `values` may be written into a text: raw, JSON-escaped or URL-encoded (a provider
 * or a library may echo a value any of these ways). Values too short to be secrets are left out.
 */
export function secretSpellings(values: readonly string[]): string[] {
  return values
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .flatMap((value) => [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])
    .filter((spelling, index, all) => all.indexOf(spelling) === index);
}

/** `text` without any registered secret value. */
export function withoutSecrets(text: string): string {
  let clean = text;
  for (const secret of secrets) {
    if (clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
  }
  return clean;
}

/** Free text fit to show or store: no secret, no banking detail, account numbers `••••1234`. */
export function scrub(text: string): string {
  return maskLongNumbers(redactSensitiveText(withoutSecrets(text)));
}

/** Audit details whose values are free text; the others are ids and states, kept whole. */
const FREE_TEXT_KEYS: ReadonlySet<string> = new Set([
  'reason',
  'message',
  'detail',
  'note',
  'purpose',
]);

/**
 * An audit record's detail for export: its free-text values scrubbed, every other string
 * without secrets, at any depth (a late outcome nests the first one).
 */
export function scrubDetail(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    return key !== undefined && FREE_TEXT_KEYS.has(key) ? scrub(value) : withoutSecrets(value);
  }
  if (Array.isArray(value)) return value.map((item) => scrubDetail(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, scrubDetail(item, name)]),
  );
}
