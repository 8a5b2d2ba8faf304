import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
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
    // The domain is pure: it may not reach into the layers that do I/O.
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: ['../../commands/*', '../../queries/*', '../../projections/*', '../../adapters/*',
          '../commands/*', '../queries/*', '../projections/*', '../adapters/*', 'pg', 'fastify', 'node:fs', 'node:net', 'node:http'],
      }],
    },
  },
);
