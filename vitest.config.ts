import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The package's own names resolve to its TypeScript sources here, as tsc's customConditions
// and `node --conditions=custodian-source` do; an installed package gets the compiled dist/.
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The slowest files, slowest first (measured on a 2-core machine with both cores busy). They
 * start before everything else: a clean clone has no timings for vitest to sort by, and one
 * of these started last would run on alone while the other worker sits idle.
 */
const SLOWEST = [
  'test/e2e/openapi/schemathesis-finds-nothing.e2e.test.ts',
  'test/e2e/compliance/holds-runs-puts-interleaved.e2e.test.ts',
  'test/e2e/docs/snippets.e2e.test.ts',
  'test/e2e/collections/contract.e2e.test.ts',
  'test/e2e/results/large-results-at-once.e2e.test.ts',
  'test/e2e/hostile/fuzz.e2e.test.ts',
  'test/int/clients/client-suites.int.test.ts',
  'test/e2e/clients/docs-samples.e2e.test.ts',
  'test/e2e/records/cold-scope.e2e.test.ts',
  'test/e2e/hostile/results-huge-or-deep-files.e2e.test.ts',
  'test/e2e/cli/service-unreachable-one-line.e2e.test.ts',
  'test/e2e/hostile/kill.e2e.test.ts',
  'test/e2e/console/console-people.e2e.test.ts',
];

/** Vitest's own order (failed first, then longest first when it has timings), with SLOWEST put ahead of it. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i === -1 ? SLOWEST.length : i;
    };
    return (await super.sort(files))
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((x, y) => x.r - y.r || x.i - y.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  resolve: {
    // The SDK package (clients/typescript) by its own name too, as tsconfig's paths map it.
    alias: [
      { find: /^custodian\/fit$/, replacement: source('./sdk/fit.ts') },
      { find: /^custodian\/sdk$/, replacement: source('./sdk/records.ts') },
      { find: /^@custodian\/sdk\/fit$/, replacement: source('./clients/typescript/src/fit/index.ts') },
      { find: /^@custodian\/sdk$/, replacement: source('./clients/typescript/src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: SlowestFirst },
  },
});
