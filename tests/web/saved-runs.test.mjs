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
import { roundToRange } from '../../web/tools/saved-runs.mjs';
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
const numbersOf = (a) => a.filter((x) => typeof x === 'number' && Number.isFinite(x));

test('roundToRange keeps every value within 1/10^places of its array\'s range, with the fewest digits', () => {
  const cases = [[0.987531234, 0.98751111, 0.98702222], [1.23456789e-7, 0.5, 1.2345678], [-3.14159265, 2.71828182, 0.5], [7.77777, 7.77777]];
  for (const places of [3, 4]) {
    for (const values of cases) {
      const out = roundToRange(values, places);
      const spread = Math.max(...values) - Math.min(...values);
      values.forEach((v, i) => assert.ok(Math.abs(out[i] - v) <= (spread > 0 ? spread : Math.abs(v)) * 10 ** -places,
        `${v} -> ${out[i]} (${places} places)`));
      assert.ok(Math.max(...out.map(digits)) <= places + Math.max(0, Math.ceil(Math.log10(Math.max(...values.map(Math.abs)) / (spread || 1)))));
    }
  }
  assert.deepEqual(roundToRange([0.987531234, 0.98751111, 0.98702222], 4), [0.98753123, 0.98751111, 0.98702222], 'a tail keeps its steps');
  assert.deepEqual(roundToRange([1.23456789e-7, 0.5, 1.2345678], 4), [1.2346e-7, 0.5, 1.2346], 'decades keep 4 digits');
  assert.deepEqual(roundToRange({ x: [3, 2.5], y: [[1.23456, 2.34567]] }, 3), { x: [3, 2.5], y: [[1.235, 2.346]] }, 'integers as they are; nested arrays each their own');
});

test('a saved run\'s plots are rounded (roundToRange), a contour\'s grid to 3 places; its summary as measured', async () => {
  const m = await loadModule('looplab-test');   // describe(): the test module's
  // Each array's numbers have no more digits than its range asks for (one more where rounding moved it).
  const tooLong = [];
  const check = (v, places, where) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) check(x, places, `${where}.${k}`);
    if (!Array.isArray(v)) return;
    const xs = numbersOf(v);
    const spread = Math.max(...xs) - Math.min(...xs), big = Math.max(...xs.map(Math.abs));
    const allowed = places + (spread > 0 ? Math.max(0, Math.ceil(Math.log10(big / spread))) : 0) + 1;
    const most = Math.max(0, ...xs.filter((x) => !Number.isInteger(x)).map(digits));
    if (most > allowed) tooLong.push(`${where}: ${most} digits`);
    v.filter((x) => x && typeof x === 'object').forEach((x, i) => check(x, places, `${where}[${i}]`));
  };
  for (const { id } of JSON.parse(m.listExperiments('en'))) {
    const saved = JSON.parse(readFileSync(join(DIR, `${id}.json`), 'utf8'));
    const grids = new Set(JSON.parse(m.describe(id, 'en')).plots.filter((p) => p.type === 'contour').flatMap((p) => p.panels.map((q) => q.grid)));
    for (const [name, series] of Object.entries(saved.series)) check(series, grids.has(name) ? 3 : 4, `${id}.${name}`);
  }
  assert.deepEqual(tooLong, []);
  // The summary is the run's own: standardization's condition number has its every digit.
  const std = JSON.parse(readFileSync(join(DIR, 'standardization.json'), 'utf8'));
  assert.ok(JSON.stringify(std.summary).match(/\d\.\d{6,}/), 'a summary number with its digits');
  // The rounding shrank it: its grids have 3 digits.
  assert.ok(Math.max(...numbersOf(std.series.raw_valley.gap).map(digits)) <= 4, 'a grid of few digits');
});

test('early.js asks for the first experiment\'s saved run when the address names none: the list\'s first', async () => {
  const m = await loadModule();
  const early = readFileSync(join(ROOT, 'web', 'app', 'early.js'), 'utf8');
  assert.equal(/FIRST_EXPERIMENT = '([^']+)'/.exec(early)?.[1], JSON.parse(m.listExperiments('en'))[0].id);
});
