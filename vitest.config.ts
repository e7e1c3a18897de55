import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two cores: keep workers at two so timing-sensitive fault tests are not starved.
    maxWorkers: 2,
  },
});
