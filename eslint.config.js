// ESLint (flat config): `npm run lint` checks web/, tests/web/, tests/size/ and wasm/test/.
// The recommended rules plus a few that keep the code plain: strict equality, const where nothing
// is reassigned, no var. Globals follow where each file runs (page, worker, node).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build/', 'dist/', 'node_modules/', 'test-results/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'all' }],
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-shadow': 'error',
    },
  },
  // The page, the widget and the panel run in the browser.
  { files: ['web/**/*.js', 'tests/web/fixtures/**/*.js'], languageOptions: { globals: globals.browser } },
  // The module worker and what it imports.
  { files: ['web/runtime/**/*.js'], languageOptions: { globals: { ...globals.browser, ...globals.worker } } },
  // Build tools and tests run in node; the browser tests also hold callbacks that run in the page.
  { files: ['wasm/test/**/*.mjs', 'tests/size/**/*.mjs', 'web/tools/build-dist.mjs', 'web/tools/language-files.mjs', 'web/tools/saved-runs.mjs'], languageOptions: { globals: globals.node } },
  {
    files: ['tests/web/**/*.mjs', 'web/tools/verify-snippets.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
