import { configDefaults, defineConfig } from 'vitest/config';
import { leakScanEnv } from './test/setup/leak-scan.ts';

const LEAK_SCAN = 'test/e2e/leak-scan.test.ts';
const FUZZ = 'test/e2e/input-fuzz.test.ts';
const E2E = 'test/e2e/**/*.test.ts';
/** Gives each end-to-end test's rehearsals the observer that keeps what they show for the scan. */
const LEAK_TRAIL = 'test/setup/leak-trail.ts';
const e2eEnv = leakScanEnv();

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two cores: keep workers at two so timing-sensitive fault tests are not starved.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, E2E],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [E2E],
          exclude: [...configDefaults.exclude, LEAK_SCAN, FUZZ],
          env: e2eEnv,
          globalSetup: ['test/setup/leak-scan.ts'],
          setupFiles: [LEAK_TRAIL],
        },
      },
      {
        // Alone after the other end-to-end tests: it keeps both cores busy, which would starve
        // their timing-sensitive faults.
        extends: true,
        test: {
          name: 'fuzz',
          include: [FUZZ],
          env: e2eEnv,
          setupFiles: [LEAK_TRAIL],
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Reads what the e2e tests left, so it runs once they have all finished.
        extends: true,
        test: { name: 'leak-scan', include: [LEAK_SCAN], env: e2eEnv, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
