import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The package's own names resolve to its TypeScript sources here, as tsc's customConditions
// and `node --conditions=custodian-source` do; an installed package gets the compiled dist/.
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  resolve: {
    alias: { 'custodian/fit': source('./sdk/fit.ts'), 'custodian/sdk': source('./sdk/records.ts') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
