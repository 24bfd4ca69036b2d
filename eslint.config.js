import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'web/dist', '.data', '.tmp', '.test-data'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  // The architecture's import rules, enforced.
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/api/**', '**/worker/**', '**/web/**', '**/sandbox/**'] }],
    },
  },
  {
    files: ['core/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['../db/**', '../providers/**', '../queue*', '../config*', '**/api/**', '**/worker/**', '**/web/**', '**/sandbox/**', 'node:*', 'pg', 'slonik', 'pg-boss'] },
      ],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/worker/**', '**/web/**', '**/sandbox/**'] }] },
  },
  {
    files: ['worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/api/**', '**/web/**', '**/sandbox/**'] }] },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/core/db/**', '**/core/providers/**', '**/core/queue*', '**/core/config*', '**/core/log*', '**/core/emails*', '**/api/**', '**/worker/**', '**/sandbox/**'] },
      ],
    },
  },
  {
    files: ['sandbox/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/core/**', '**/api/**', '**/worker/**', '**/web/**'] }] },
  },
);
