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

// Significant digits of a number as JSON writes it: 0.0001234 -> 4, 1.5e-7 -> 2.
const digits = (x) => String(x).replace(/e.*$/, '').replace(/^-?[0.]*/, '').replace('.', '').replace(/0+$/, '').length;

test('a saved run\'s plots are kept to 4 significant digits, a contour\'s grid to 3; its summary as measured', async () => {
  const m = await loadModule();
  for (const { id } of JSON.parse(m.listExperiments('en'))) {
    const saved = JSON.parse(readFileSync(join(DIR, `${id}.json`), 'utf8'));
    const plots = JSON.parse(m.describe(id, 'en')).plots;
    const grids = new Set(plots.filter((p) => p.type === 'contour').flatMap((p) => p.panels.map((panel) => panel.grid)));
    for (const [name, series] of Object.entries(saved.series)) {
      const numbers = (JSON.stringify(series).match(/-?\d+\.\d+(e[-+]?\d+)?/g) ?? []).map(digits);
      assert.ok(Math.max(0, ...numbers) <= (grids.has(name) ? 3 : 4), `${id}: series ${name} has a number of ${Math.max(...numbers)} digits`);
    }
  }
  // The summary is the run's own: standardization's condition number has its every digit.
  const std = JSON.parse(readFileSync(join(DIR, 'standardization.json'), 'utf8'));
  assert.ok(JSON.stringify(std.summary).match(/\d\.\d{6,}/), 'a summary number with its digits');
});

test('early.js asks for the first experiment\'s saved run when the address names none: the list\'s first', async () => {
  const m = await loadModule();
  const early = readFileSync(join(ROOT, 'web', 'app', 'early.js'), 'utf8');
  assert.equal(/FIRST_EXPERIMENT = '([^']+)'/.exec(early)?.[1], JSON.parse(m.listExperiments('en'))[0].id);
});
