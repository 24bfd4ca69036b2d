import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** swr's hook only through useApi: it pauses every poll once the session has ended. */
const SWR_THROUGH_USE_API = [
  {
    name: 'swr',
    importNames: ['default', 'useSWRConfig', 'SWRConfig'],
    message:
      'Use useApi from web/src/api/swr.ts: it fetches with our fetcher and pauses while the session has ended (there is no app-wide SWRConfig, so that the landing page loads no swr).',
  },
];

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
      'no-restricted-imports': [
        'error',
        { patterns: ['**/api/**', '**/worker/**', '**/web/**', '**/sandbox/**'] },
      ],
    },
  },
  {
    files: ['core/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '../db/**',
            '../providers/**',
            '../queue*',
            '../config/**',
            '../commands/**',
            '../crypto/**',
            '../emails/**',
            '../observability/**',
            '**/api/**',
            '**/worker/**',
            '**/web/**',
            '**/sandbox/**',
            'node:*',
            'pg',
            'slonik',
            'pg-boss',
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/worker/**', '**/web/**', '**/sandbox/**'] }],
    },
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
        {
          patterns: [
            {
              group: [
                '**/core/db/**',
                '**/core/providers/**',
                '**/core/queue*',
                '**/core/config/**',
                '**/core/commands/**',
                '**/core/observability/**',
                '**/core/emails/**',
                '**/core/crypto/**',
              ],
            },
            // web/src/api is the SPA's own fetcher; the server's api/ sits two or more levels up.
            { regex: '^(\\.\\./){2,}(api|worker|sandbox|scripts)/' },
          ],
          paths: SWR_THROUGH_USE_API,
        },
      ],
    },
  },
  // The one place useSWR is called from (it says what an app-wide SWRConfig would).
  {
    files: ['web/src/api/swr.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/core/**', '**/api/**', '**/worker/**', '**/web/**'] },
      ],
    },
  },
  // The AWS SDK only behind core/providers: everything else goes through its typed clients.
  {
    files: ['api/**/*.ts', 'worker/**/*.ts', 'scripts/**/*.ts', 'web/src/**/*.{ts,tsx}', 'core/**/*.ts'],
    ignores: ['core/providers/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^@aws-sdk\\//]',
          message: 'Call AWS through core/providers/ only.',
        },
      ],
    },
  },
);
