import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ADAPTERS = { regex: '(^|/)adapters(/|$)', message: 'depend on a port in domain/ports; adapters are wired in adapters/service.ts.' };

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests poke at JSON answers whose shape is what they check.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The core reaches drivers only through ports (domain/ports): handlers, queries and
    // projections never import an adapter, so a driver can be swapped or faked at the root.
    files: ['domain/**/*.ts', 'commands/**/*.ts', 'queries/**/*.ts', 'projections/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [ADAPTERS] }],
    },
  },
  {
    // The domain is pure: it imports nothing outside domain/ (every domain file sits at
    // domain/<area>/<file>.ts, so two steps up leave it) and no I/O module, except the SDK
    // package's pure rules it shares with agents (the fitting library, the records limits and
    // the declaration check), so each has one source.
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ADAPTERS,
            {
              regex: '^(\\.\\./){2,}(?!clients/typescript/src/(fit/[a-z-]+|limits|declaration)\\.ts$)',
              message: "domain/ imports nothing outside domain/ (but the SDK package's fit/, limits.ts and declaration.ts).",
            },
            { group: ['pg', 'fastify', 'node:fs', 'node:net', 'node:http', 'kafkajs', 'pino'], message: 'domain/ does no I/O.' },
          ],
        },
      ],
    },
  },
  {
    // The SDK package (clients/typescript) installs on its own: it imports only its own files
    // and node's, never the service's code nor a dependency.
    files: ['clients/typescript/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./\\.\\./\\.\\./', message: 'the SDK package imports nothing outside clients/typescript.' },
            { regex: '^(?!\\.|node:)', message: 'the SDK package has no dependencies: use node: modules only.' },
          ],
        },
      ],
    },
  },
);
