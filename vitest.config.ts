import { configDefaults, defineConfig } from 'vitest/config';
import { leakScanEnv } from './test/setup/leak-scan.ts';

const LEAK_SCAN = 'test/e2e/leak-scan.test.ts';
const FUZZ = 'test/e2e/input-fuzz.test.ts';
const E2E = 'test/e2e/**/*.test.ts';
/**
 * Tests of payops on a real store (PGlite, or PostgreSQL at TEST_DATABASE_URL), HTTP servers
 * (the Payments sandbox, the Slack emulation) or child processes: `npm test` runs them, the
 * unit project does not.
 */
const INTEGRATION = [
  'test/store/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/app/{execution-fence,follow-up,preflight,reads,reconcile}.test.ts',
  'test/lib/run-module.test.ts',
  'test/payments/client.test.ts',
  'test/readme.test.ts',
  'test/rehearsal/demo/demo.test.ts',
  'test/rehearsal/sandbox-command.test.ts',
  'test/rehearsal/sandbox/{payments-api,slack}.test.ts',
  'test/slack/outbox.test.ts',
];
/** Gives each end-to-end test's rehearsals the observer that keeps what they show for the scan. */
const LEAK_TRAIL = 'test/setup/leak-trail.ts';
/** Makes the store template each new PGlite store starts from, once, for the projects opening one. */
const STORE_TEMPLATE = 'test/setup/pglite-template.ts';
const e2eEnv = leakScanEnv();

/** Generated inputs a property test tries at most in `npm run test:unit` (`--mode quick`). */
const QUICK_PROPERTY_RUNS = 20;

export default defineConfig(({ mode }) => ({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two cores: keep workers at two so timing-sensitive fault tests are not starved.
    maxWorkers: 2,
    projects: [
      {
        // Every test in memory: its setup throws when one starts a server, opens a connection,
        // runs a child process or opens PGlite (`npm run test:unit`).
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, E2E, ...INTEGRATION],
          setupFiles: ['test/setup/unit-guard.ts', 'test/setup/quick-properties.ts'],
          provide: { quickPropertyRuns: mode === 'quick' ? QUICK_PROPERTY_RUNS : undefined },
          // One module graph for every unit file (none mocks a module or relies on state another
          // leaves): src is loaded once, not once per file.
          isolate: false,
          // Threads start sooner than processes, and nothing here needs a process of its own.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: INTEGRATION, globalSetup: [STORE_TEMPLATE] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [E2E],
          exclude: [...configDefaults.exclude, LEAK_SCAN, FUZZ],
          env: e2eEnv,
          globalSetup: [STORE_TEMPLATE, 'test/setup/leak-scan.ts'],
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
          globalSetup: [STORE_TEMPLATE],
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
}));
