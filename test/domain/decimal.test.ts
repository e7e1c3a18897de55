import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimal,
  compareDecimal,
  isPositiveDecimalString,
  multiplyDecimal,
  providerAmountText,
  subtractDecimal,
} from '../../src/domain/decimal.ts';

describe('decimal strings', () => {
  it('accepts only plain positive decimals as amounts', () => {
    for (const ok of ['1', '0.01', '1250.50', '10000'])
      expect(isPositiveDecimalString(ok)).toBe(true);
    for (const bad of ['0', '0.00', '-1', '1e3', '01', '1.', '.5', ' 1', '1,000', 'NaN', '']) {
      expect(isPositiveDecimalString(bad)).toBe(false);
    }
  });

  it('compares across different scales exactly', () => {
    expect(compareDecimal('10000', '9999.999999')).toBe(1);
    expect(compareDecimal('1250.50', '1250.5')).toBe(0);
    expect(compareDecimal('0.1', '0.10000000000000000001')).toBe(-1);
  });

  it('adds, subtracts and multiplies without float error', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(subtractDecimal('1250.50', '0.51')).toBe('1249.99');
    expect(multiplyDecimal('100', '0.918437', 2)).toBe('91.84');
    expect(multiplyDecimal('1.005', '1', 2)).toBe('1.01');
    expect(() => subtractDecimal('1', '2')).toThrow(RangeError);
  });

  it('adding then subtracting gives back the same value', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }))
      .map(([units, scale]) => {
        const digits = units.toString().padStart(scale + 1, '0');
        return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
      });
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        expect(compareDecimal(subtractDecimal(addDecimal(a, b), b), a)).toBe(0);
      }),
    );
  });

  it('shows an amount read from the provider with grouped thousands and its own decimals', () => {
    expect(providerAmountText('97975.00', 'USDC')).toBe('97,975.00 USDC');
    expect(providerAmountText('98000.00', 'USDC')).toBe('98,000.00 USDC');
    expect(providerAmountText('1250.5', 'USDC')).toBe('1,250.5 USDC');
    expect(providerAmountText('97975.003750')).toBe('97,975.003750');
    expect(providerAmountText('-1234567')).toBe('-1,234,567');
    expect(providerAmountText('0.10', 'USD')).toBe('0.10 USD');
    expect(providerAmountText('999')).toBe('999');
    // Not plainly one amount: as the provider wrote it.
    for (const text of ['1,250.50', '1.5e3', 'n/a']) expect(providerAmountText(text)).toBe(text);
  });
});
