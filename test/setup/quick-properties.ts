import type { IRawProperty, Parameters } from 'fast-check';
import { inject, vi } from 'vitest';

/**
 * The unit project's setup for `npm run test:unit` (vitest's `--mode quick`): each property test
 * tries at most `quickPropertyRuns` generated inputs, so the tier answers in seconds. `npm test`
 * does not set it, and tries each property as many times as the test asks.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    quickPropertyRuns: number | undefined;
  }
}

vi.mock('fast-check', async (importOriginal) => {
  const fc = await importOriginal<typeof import('fast-check')>();
  const most = inject('quickPropertyRuns');
  if (most === undefined) return fc;
  const assert = (<Ts>(property: IRawProperty<Ts>, params?: Parameters<Ts>) =>
    fc.assert(property, {
      ...params,
      numRuns: Math.min(params?.numRuns ?? most, most),
    })) as typeof fc.assert;
  return { ...fc, assert, default: { ...fc.default, assert } };
});
