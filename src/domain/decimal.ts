/**
 * Amounts are decimal strings end to end. These helpers compare and multiply them exactly
 * with BigInt, so no amount ever passes through a binary float.
 */

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/** A non-negative decimal written plainly: digits, optionally a point and more digits. */
export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

export function isPositiveDecimalString(value: string): boolean {
  return isDecimalString(value) && /[1-9]/.test(value);
}

interface Scaled {
  units: bigint;
  scale: number;
}

function toScaled(value: string): Scaled {
  if (!isDecimalString(value)) throw new RangeError('not a decimal string');
  const [whole = '0', fraction = ''] = value.split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

function fromScaled({ units, scale }: Scaled): string {
  const digits = units.toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Both values as integers of one common scale. */
function aligned(a: string, b: string): [bigint, bigint, number] {
  const left = toScaled(a);
  const right = toScaled(b);
  const scale = Math.max(left.scale, right.scale);
  return [
    left.units * 10n ** BigInt(scale - left.scale),
    right.units * 10n ** BigInt(scale - right.scale),
    scale,
  ];
}

/** -1, 0 or 1, like a comparator. */
export function compareDecimal(a: string, b: string): number {
  const [left, right] = aligned(a, b);
  return left === right ? 0 : left < right ? -1 : 1;
}

export function addDecimal(a: string, b: string): string {
  const [left, right, scale] = aligned(a, b);
  return fromScaled({ units: left + right, scale });
}

/** `a - b`; throws when the result would be negative (amounts here never are). */
export function subtractDecimal(a: string, b: string): string {
  const [left, right, scale] = aligned(a, b);
  if (left < right) throw new RangeError('negative result');
  return fromScaled({ units: left - right, scale });
}

/** Exact product, rounded half-up to `decimals` places. */
export function multiplyDecimal(a: string, b: string, decimals: number): string {
  const left = toScaled(a);
  const right = toScaled(b);
  const scale = left.scale + right.scale;
  const product = left.units * right.units;
  if (scale <= decimals) {
    return fromScaled({ units: product * 10n ** BigInt(decimals - scale), scale: decimals });
  }
  const divisor = 10n ** BigInt(scale - decimals);
  return fromScaled({ units: (product + divisor / 2n) / divisor, scale: decimals });
}

/**
 * The shortest plain form of a number written as digits with an optional fraction (`05.500` →
 * `5.5`, `3.00` → `3`), or undefined for anything else.
 */
export function plainDecimal(value: string): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return undefined;
  const whole = (match[1] as string).replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * An amount as a provider may write it in a reply — `33.3`, `33.30`, `1,250.50`, `.5` — as a
 * plain decimal string for `compareDecimal`, or undefined when it is not plainly one amount.
 */
export function readAmount(text: string): string | undefined {
  const trimmed = text.trim();
  const grouped = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(trimmed) ? trimmed.replace(/,/g, '') : trimmed;
  const leadingZero = grouped.startsWith('.') ? `0${grouped}` : grouped;
  return plainDecimal(leadingZero);
}

/**
 * An amount payops read from the provider, as every surface shows it: thousands grouped with
 * commas, the provider's decimals kept (`97975.00` → `97,975.00`, `1250.5` → `1,250.5`), then its
 * currency when one is known. Text that is not plainly one amount is shown as the provider wrote
 * it. (What a person requested is shown as they typed it, never through this.)
 */
export function providerAmountText(amount: string, currency?: string): string {
  const match = /^([-+]?)(\d+)(\.\d+)?$/.exec(amount);
  const grouped = match
    ? `${match[1]}${(match[2] as string).replace(/\B(?=(\d{3})+$)/g, ',')}${match[3] ?? ''}`
    : amount;
  return currency === undefined ? grouped : `${grouped} ${currency}`;
}
