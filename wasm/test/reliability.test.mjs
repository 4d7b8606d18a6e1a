// Reliability of the embind module under Node: the bad inputs of tests/bad-inputs/cases.json give
// the same messages as natively; 1,000 consecutive runs of all nine experiments leave the heap flat;
// the same config of any experiment gives
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

// The smallest config of every experiment: each one's whole path (data, models, programs, sessions,
// results) is allocated and freed in turn (no extra timing rounds: max_seconds 0).
const SMALL = [
  { experiment: 'standardization', max_iterations: 200 },
  { experiment: 'execution-modes', n: 200, batch: 50, epochs: 1, hidden: 4, unroll: 2, max_seconds: 0 },
  { experiment: 'unroll', n: 200, batch: 100, epochs: 1, hidden: 4, max_seconds: 0 },
  { experiment: 'retracing', n: 300 },
  { experiment: 'call-granularity', n: 200, batch: 50, epochs: 2, hidden: 4, chunk_ms: 0.1, max_seconds: 0 },
  { experiment: 'overhead', n_max: 100, points: 2, repeats: 1, chunk_ms: 0.1, max_seconds: 0 },
  { experiment: 'pipelines', n: 200, batch: 50, epochs: 1, unroll: 2, max_seconds: 0 },
  { experiment: 'matrix', rows_small: 8, rows_medium: 16, rows_large: 32, repeats: 1, chunk_ms: 0.1, max_seconds: 0 },
  { experiment: 'optimizers', max_iterations: 200, max_seconds: 0 },
];

test('1,000 consecutive runs of all nine experiments leave the wasm heap flat', { timeout: 300_000 }, () => {
  const runs = 1000;
  const pick = (i) => SMALL[i % SMALL.length];
  for (let i = 0; i < 2 * SMALL.length; i++) runToEnd(pick(i));  // warm-up: one-time statics
  const start = m.heapStats();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) runToEnd(pick(i));
  const ms = performance.now() - t0;
  const after = m.heapStats();
  console.log(`  ${runs} runs (${SMALL.length} experiments in turn) in ${(ms / 1000).toFixed(1)} s; `
    + `heap ${start.heap_bytes} -> ${after.heap_bytes} bytes, malloc in use ${start.used_bytes} -> ${after.used_bytes} bytes`);
  assert.equal(after.heap_bytes, start.heap_bytes, 'wasm memory grew');
  assert.ok(after.used_bytes - start.used_bytes <= 4096, `malloc in use grew by ${after.used_bytes - start.used_bytes} bytes`);
});

// Bad input is the error a student meets most (the page validates as they type): its path from the
// check that throws to the boundary that catches must free what it held, in every file it passes.
test('every bad input, 20 times over, leaves the wasm heap flat', { timeout: 120_000 }, () => {
  const texts = cases.filter((c) => !c.args && !c.cli_only).map(configText);
  const each = () => { for (const text of texts) { m.validateConfig(text); const r = m.createRun(text); if (!(r instanceof Error)) r.delete(); } };
  each();   // one-time statics
  const start = m.heapStats();
  for (let i = 0; i < 20; i++) each();
  const after = m.heapStats();
  console.log(`  ${20 * texts.length} bad inputs, each validated and run: malloc in use ${start.used_bytes} -> ${after.used_bytes} bytes`);
  assert.equal(after.heap_bytes, start.heap_bytes, 'wasm memory grew');
  assert.ok(after.used_bytes - start.used_bytes <= 4096, `malloc in use grew by ${after.used_bytes - start.used_bytes} bytes`);
});

/**
 * A copy of a result without what is measured: keys naming times, the environment, the prose; and
 * code_cached (a program's first run builds its code, the second finds it built); run_longer (whether a
 * timing verdict is still open).
 */
function withoutTimings(value) {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (/(^|_)(ms|us|ns)(_|$)|^environment$|^headline$|^reading$|^answer$|^beside_quoted$|wall|speedup|^chunks$|^rounds$|^epochs_per_round$|_pct(_|$)|^code_cached$|^run_longer$/.test(k)) continue;
    // A comparison of times or rates follows the clock (values, spreads, verdict); of losses and counts not.
    out[k] = k === 'comparisons' ? v.filter((c) => !['time', 'rate'].includes(c.quantity)) : withoutTimings(v);
  }
  return out;
}

// The experiments whose every number but the losses follows the clock (adaptive step counts, fits of
// timings, which mode was fastest): of these, the config, every loss and the shape (keys and array
// lengths) of the result without its timings are compared. Not of the whole result: a sentence's
// arguments follow its verdict (a paired time verdict decided in one run may still be open in the
// next, and says so with other numbers).
const TIMED = new Set(['call-granularity', 'overhead', 'pipelines', 'matrix', 'optimizers']);

/** Every leaf whose key names a loss, by path, e.g. {"runs.0.final_loss": 0.98}. */
function losses(value, path = '', out = {}) {
  if (value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    if (/loss/.test(k) && (v === null || typeof v !== 'object' || Array.isArray(v))) out[p] = v;
    else losses(v, p, out);
  }
  return out;
}

/** The result with every leaf replaced by null: its keys and array lengths. */
function shape(value) {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return null;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
}

function deterministicPart(result) {
  if (!TIMED.has(result.experiment)) return withoutTimings(result);
  return { config: result.config, losses: losses(result), shape: shape(withoutTimings(result)) };
}

test('the same config run twice gives identical results apart from timings, for all nine', { timeout: 120_000 }, () => {
  const configs = [
    { experiment: 'standardization', data: 'synthetic', n: 300, max_iterations: 3000 },
    { experiment: 'execution-modes', n: 1000, batch: 50, epochs: 2 },
    { experiment: 'unroll', n: 1000, batch: 100, epochs: 1 },
    { experiment: 'retracing', n: 300 },
    ...SMALL.filter((c) => ['call-granularity', 'overhead', 'pipelines', 'matrix', 'optimizers'].includes(c.experiment)),
  ];
  assert.equal(new Set(configs.map((c) => c.experiment)).size, 9, 'every experiment once');
  for (const config of configs) {
    const a = deterministicPart(runToEnd(config));
    const b = deterministicPart(runToEnd(config));
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
