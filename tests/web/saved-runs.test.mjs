// The saved runs (build/saved-runs/<id>.json, which make dist writes with web/tools/saved-runs.mjs;
// issue 39, item 2): one per experiment, each of its experiment's defaults as the module resolves
// them, and each saying where and when it was measured, which the page's label shows.
//
//   node --test tests/web/saved-runs.test.mjs   (needs make dist)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadModule } from '../../wasm/test/load.mjs';
import { ROOT } from './harness.mjs';

const DIR = join(ROOT, 'build', 'saved-runs');

test('every experiment has a saved run of its defaults as they are now, with where and when it was measured', async () => {
  const m = await loadModule();
  const ids = JSON.parse(m.listExperiments('en')).map((x) => x.id);
  assert.deepEqual(readdirSync(DIR).filter((f) => f.endsWith('.json')).sort(), ids.map((id) => `${id}.json`).sort());
  for (const id of ids) {
    const saved = JSON.parse(readFileSync(join(DIR, `${id}.json`), 'utf8'));
    const defaults = JSON.parse(m.validateConfig(JSON.stringify({ experiment: id })));
    assert.equal(saved.experiment, id);
    assert.deepEqual(saved.config, defaults, `${id}: not its defaults`);
    assert.match(saved.saved.when, /^20\d\d-\d\d-\d\d$/, `${id}: when`);
    assert.match(saved.saved.where, /^Node\.js \d+\.\d+\.\d+ \(V8 [^)]+\), .+ ×\d+/, `${id}: where`);
    assert.ok(saved.summary?.comparisons && saved.series && saved.environment, `${id}: a whole result`);
  }
});
