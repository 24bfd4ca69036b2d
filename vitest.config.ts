import { defineConfig } from 'vitest/config';

/**
 * Three projects: `unit` (pure code, colocated *.test.ts), `integration` (real Postgres,
 * each file in its own fresh database, the sandbox for outside services) and `e2e`
 * (Chromium through playwright-core against the real stack).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'core/**/*.test.ts',
            'api/**/*.test.ts',
            'worker/**/*.test.ts',
            'web/src/**/*.test.ts',
            'scripts/**/*.test.ts',
            'sandbox/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/support/globalPostgres.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/support/globalStack.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});
