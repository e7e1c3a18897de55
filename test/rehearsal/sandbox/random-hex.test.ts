import { describe, expect, it } from 'vitest';
import { randomHex } from '../../../src/rehearsal/sandbox/random-hex.ts';

describe('randomHex', () => {
  it('gives the asked number of bytes as hex, never the same twice across pool refills', () => {
    const seen = new Set<string>();
    // 3,000 × 12 bytes spans several 4 KB pools, and a request larger than a pool.
    for (let index = 0; index < 3_000; index++) {
      const hex = randomHex(12);
      expect(hex).toMatch(/^[0-9a-f]{24}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(3_000);
    expect(randomHex(5_000)).toMatch(/^[0-9a-f]{10000}$/);
  });
});
