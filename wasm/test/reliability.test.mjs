// Reliability of the embind module under Node: the bad inputs of tests/bad-inputs/cases.json give
// the same messages as natively; 1,000 consecutive runs leave the heap flat; the same config gives
// the same results apart from timings; reaching the maximum memory is an Error, never an abort.
// Run by `npm test` (after `make build`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { ROOT, loadModule, runToEnd as runModule } from './load.mjs';

const cases = JSON.parse(readFileSync(join(ROOT, 'tests', 'bad-inputs', 'cases.json'), 'utf8')).cases;

let m;
before(async () => { m = await loadModule('looplab'); });

function configText(c) {
  if ('config' in c) return c.config;
  const f = c.config_fill;
  return f.prefix + f.fill.repeat(f.count) + f.suffix;
}

const runToEnd = (config) => runModule(m, config);

test('every config bad input gives its message as a ConfigError from validateConfig and createRun', () => {
  let checked = 0;
  for (const c of cases) {
    if (c.args || c.cli_only) continue;         // CLI arguments, or bytes a JS string cannot carry
    const text = configText(c);
    const want = c.message_wasm ?? c.message;
    for (const [fn, r] of [['validateConfig', m.validateConfig(text)], ['createRun', m.createRun(text)]]) {
      assert.ok(r instanceof Error, `${c.name}: ${fn} accepted it`);
      assert.equal(r.name, 'ConfigError', `${c.name}: ${fn} error name`);
      assert.equal(r.message, want, `${c.name}: ${fn}`);
    }
    checked++;
  }
  assert.ok(checked >= 50, `checked ${checked} cases`);
});

test('a lone surrogate from JS (not UTF-8 representable) is a ConfigError, not a crash', () => {
  const r = m.validateConfig('{"experiment": "standardization", "mode": "\ud800"}');
  assert.ok(r instanceof Error);
  assert.equal(r.name, 'ConfigError');
  assert.match(r.message, /^(config: not valid JSON|mode: must be one of)/);
});

test('1,000 consecutive runs leave the wasm heap flat', { timeout: 300_000 }, () => {
  const config = { experiment: 'standardization', max_iterations: 200 };
  for (let i = 0; i < 20; i++) runToEnd(config);            // warm-up: one-time statics
  const start = m.heapStats();
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) runToEnd(config);
  const ms = performance.now() - t0;
  const after = m.heapStats();
  console.log(`  1,000 runs in ${(ms / 1000).toFixed(1)} s; heap ${start.heap_bytes} -> ${after.heap_bytes} bytes, `
    + `malloc in use ${start.used_bytes} -> ${after.used_bytes} bytes`);
  assert.equal(after.heap_bytes, start.heap_bytes, 'wasm memory grew');
  assert.ok(after.used_bytes - start.used_bytes <= 4096, `malloc in use grew by ${after.used_bytes - start.used_bytes} bytes`);
});

/** A copy of a result without what is measured: keys naming times, the environment, the prose. */
function withoutTimings(value) {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (/(^|_)(ms|us)(_|$)|^environment$|^headline$|^reading$|wall|speedup/.test(k)) continue;
    out[k] = withoutTimings(v);
  }
  return out;
}

test('the same config run twice gives identical results apart from timings', { timeout: 120_000 }, () => {
  const configs = [
    { experiment: 'standardization', data: 'synthetic', n: 300, max_iterations: 3000 },
    { experiment: 'execution-modes', n: 1000, batch: 50, epochs: 2 },
    { experiment: 'unroll', n: 1000, batch: 100, epochs: 1 },
    { experiment: 'retracing', n: 300 },
  ];
  for (const config of configs) {
    const a = withoutTimings(runToEnd(config));
    const b = withoutTimings(runToEnd(config));
    assert.deepEqual(a, b, config.experiment);
    assert.ok(JSON.stringify(a).length > 200, `${config.experiment}: something left to compare`);
  }
});

test('reaching the maximum memory is an OutOfMemory Error, and the module keeps working', async () => {
  const t = await loadModule('looplab-test');           // test build: has testAllocate()
  const max = t.heapStats().max_bytes;
  assert.equal(max, 1024 * 1024 * 1024, 'maximum memory is 1 GiB');
  const r = t.testAllocate(2000);                 // 2,000 MB > 1 GiB
  assert.ok(r instanceof Error, `allocation of 2,000 MB returned ${r}`);
  assert.equal(r.name, 'OutOfMemory');
  assert.match(r.message, /^out of memory: the run needed more than the 1024 MB this WebAssembly module may use/);
  assert.equal(t.testAllocate(8), 8 * 1048576, 'a small allocation still works');
  const run = t.createRun('{"experiment": "standardization", "max_iterations": 10}');
  assert.ok(!(run instanceof Error), String(run));
  run.delete();
  assert.equal(typeof m.testAllocate, 'undefined', 'the shipped module has no test hooks');
  assert.equal(typeof t.testAllocate, 'function');
});
