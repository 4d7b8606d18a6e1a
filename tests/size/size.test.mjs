// The size budget (issue 26): fails when the WebAssembly module or a script of dist/ grows more than
// 10% over the numbers in tests/size/sizes.json, raw or as the brotli copy make dist writes.
//
// NOTE: sizes.json is updated deliberately, with the reason, in the same commit that makes a file
// bigger (or, after making one smaller, to hold the gain): `node tests/size/size.test.mjs --print`
// prints the current numbers in its format. A test run never rewrites it. docs/size.md says what
// the module holds (scripts/wasm-size).
//
// Needs `make dist` (dist/ and its .br copies). Sizes are bytes, so this test runs anywhere, alone
// or beside the others: no timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = join(ROOT, 'dist');
const BUDGET = JSON.parse(readFileSync(join(ROOT, 'tests', 'size', 'sizes.json'), 'utf8'));
const GROWTH = 1.10;

function measure(file) {
  const path = join(DIST, file);
  if (!existsSync(path) || !existsSync(`${path}.br`)) throw new Error(`${path}(.br) is missing: run \`make dist\` first`);
  return { bytes: statSync(path).size, brotli: statSync(`${path}.br`).size };
}

if (process.argv.includes('--print')) {
  const files = Object.fromEntries(Object.keys(BUDGET.files).map((f) => [f, measure(f)]));
  console.log(JSON.stringify({ ...BUDGET, files }, null, 2));
} else {
  for (const [file, recorded] of Object.entries(BUDGET.files)) {
    test(`dist/${file}: at most 10% over ${recorded.bytes} B (${recorded.brotli} B brotli)`, () => {
      const now = measure(file);
      for (const kind of ['bytes', 'brotli']) {
        assert.ok(now[kind] <= recorded[kind] * GROWTH,
          `dist/${file} is ${now[kind]} B ${kind === 'brotli' ? 'as brotli' : 'raw'}, more than 10% over the ` +
          `${recorded[kind]} B recorded in tests/size/sizes.json: make it smaller, or raise the number there ` +
          'in this commit with the reason');
      }
    });
  }
}
