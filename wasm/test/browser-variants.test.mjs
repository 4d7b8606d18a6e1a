// The bindings behind the browser-measured variants (web/runtime/js-variants.js): the core's median,
// half-IQR spread and cost-line fit, and Run.addMeasurements, which makes what the worker measured
// part of the run's result. Fed with made-up measurements, so every expected number is known.
// Run by `npm test` (after `make build`).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadModule } from './load.mjs';

let m;
before(async () => { m = await loadModule(); });

/** Calls a binding and fails with its message when it returned an Error. */
function ok(r) {
  if (r instanceof Error) assert.fail(`${r.name}: ${r.message}`);
  return r;
}

/**
 * Runs `config` to its end and returns [its result, its result once given the measurements]:
 * `measured(core)` builds them from the first result, as the worker does.
 */
function runWith(config, measured) {
  const run = ok(m.createRun(JSON.stringify(config)));
  try {
    while (!ok(run.advance(50)));
    const core = JSON.parse(ok(run.result()));
    ok(run.addMeasurements(JSON.stringify(measured(core))));
    return [core, JSON.parse(ok(run.result()))];
  } finally {
    run.delete();
  }
}
const CG = { experiment: 'call-granularity', n: 200, batch: 20, epochs: 3, chunk_ms: 0.1 };
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('median, halfIqr and fitCostLine are the core\'s, on arrays and typed arrays', () => {
  assert.equal(ok(m.median([3, 1, 2])), 2);
  assert.equal(ok(m.median(new Float64Array([4, 1, 3, 2]))), 2.5);
  assert.equal(ok(m.median([])), 0);
  assert.equal(ok(m.halfIqr([5, 1, 4, 2, 3])), 1);
  assert.equal(ok(m.halfIqr([7])), 0);
  const line = JSON.parse(ok(m.fitCostLine([10, 100, 1000], [2.1, 3, 12])));
  near(line.a, 2, 'a');
  near(line.b, 0.01, 'b');
  near(line.crossover, 200, 'crossover');
  assert.equal(JSON.parse(ok(m.fitCostLine([10, 100], [5, 1]))).crossover, null, 'no crossover when b < 0');
  for (const r of [m.median('3'), m.halfIqr({ length: 2 }), m.fitCostLine([1], [1]), m.fitCostLine([1, 1], [2, 2])]) {
    assert.ok(r instanceof Error, `an Error, not ${r}`);
  }
});

const JS_RUN_KEYS = ['variant', 'mode', 'measured_in', 'batch_copied_per_call', 'steps', 'us_per_step', 'overhead_us_per_call',
  'spread_us', 'ci_us', 'chunks', 'first_epoch_ms', 'total_ms', 'final_loss', 'diverged', 'same_losses_as_fit'];
const CORE_VARIANTS = ['fit', 'train_on_batch', 'train_on_batch_traced', 'train_on_batch_compiled'];

function epochVariant(variant, chunkUs, fit, extra = {}) {
  return { variant, chunk_us: chunkUs, first_epoch_ms: 5, total_ms: 20, steps: 30, final_loss: fit.final_loss,
    diverged: false, series: { step: [0, 1], loss: [1, 0.5] }, ...extra };
}

test('call-granularity: js_fit and js_train_on_batch join the runs, comparisons, summary, headline and reading', () => {
  const [core, r] = runWith(CG, (c) => {
    const fit = c.runs.find((x) => x.variant === 'fit');
    // Chunk i of both covers the same epochs (a pair): js_train_on_batch takes twice as long in every one.
    const jsFitChunks = [2, 4, 3, 3, 2, 4, 3, 3];
    return { same_losses: true, variants: [epochVariant('js_fit', jsFitChunks, fit), epochVariant('js_train_on_batch', jsFitChunks.map((u) => 2 * u), fit)] };
  });
  assert.deepEqual(r.runs.map((x) => x.variant), [...CORE_VARIANTS, 'js_fit', 'js_train_on_batch']);
  const [jsFit, jsTob] = r.runs.slice(CORE_VARIANTS.length);
  assert.deepEqual(Object.keys(jsTob), JS_RUN_KEYS);
  assert.equal(jsTob.mode, 'traced', 'both JS variants run fit\'s traced step');
  assert.equal(jsFit.us_per_step, 3);
  assert.equal(jsTob.us_per_step, 6);
  assert.equal(jsTob.overhead_us_per_call, 3);
  assert.equal(jsFit.spread_us, 0.25);
  assert.equal(jsTob.chunks, 8);
  assert.equal(jsFit.batch_copied_per_call, false);
  assert.equal(jsTob.measured_in, 'JavaScript → WebAssembly (browser worker)');
  assert.equal(jsTob.same_losses_as_fit, true);
  assert.deepEqual(r.series.js_fit, { step: [0, 1], loss: [1, 0.5] });
  const s = r.summary;
  assert.deepEqual(s.us_per_step, { ...core.summary.us_per_step, js_fit: 3, js_train_on_batch: 6 });
  assert.equal(s.overhead_us_per_call.js_train_on_batch, 3);
  assert.equal(s.same_losses, core.summary.same_losses);
  assert.match(s.measured_where, /; js_fit and js_train_on_batch: JavaScript → WebAssembly \(browser worker\), both with fit's traced step, their epochs interleaved/);
  const { message, short, ...record } = s.comparisons.at(-1);
  assert.deepEqual(record, { id: 'js_train_on_batch_vs_js_fit', a: { label: 'js_train_on_batch', value: 6, spread: 0.5 },
    b: { label: 'js_fit', value: 3, spread: 0.25 }, quantity: 'time', unit: 'µs per step', better: 'lower', verdict: 'b',
    ratio: 2, ci: [2, 2], rounds: 8, taken: 8, level: 0.025, band: 0.05, beyond_band: true, decided: true });
  assert.equal(message.key, 'cmp.win.time');
  assert.equal(short.key, 'cmp.short.time');
  assert.equal(s.comparisons.length, core.summary.comparisons.length + 1);
  assert.deepEqual(s.headline.at(-1), { label: 'JS → wasm per batch vs js_fit, both traced', value: 'js_fit 2× faster',
    note: 'js_fit was 2× faster than js_train_on_batch (3 vs 6 µs per step; 95% interval 2–2× over 8 rounds); losses identical to fit' });
  assert.equal(s.reading, `${core.summary.reading} Driven from JavaScript with fit's traced step in both, js_fit was 2× faster `
    + 'than js_train_on_batch (3 vs 6 µs per step; 95% interval 2–2× over 8 rounds): this pair isolates the JavaScript → WebAssembly call boundary and the copy into '
    + 'the wasm heap, for losses identical to fit\'s.');
});

test('call-granularity: a diverged variant has no final loss; different losses are said to differ; two chunks decide nothing', () => {
  const [, r] = runWith(CG, (c) => {
    const fit = c.runs.find((x) => x.variant === 'fit');
    return { same_losses: false, variants: [
      epochVariant('js_fit', [2, 4], fit), epochVariant('js_train_on_batch', [3.2, 3.4], fit, { diverged: true, final_loss: null })] };
  });
  const jsTob = r.runs.at(-1);
  assert.equal(jsTob.final_loss, null);
  assert.equal(jsTob.same_losses_as_fit, false);
  assert.equal(r.summary.same_losses, false);
  assert.equal(r.summary.diverged, true);
  assert.equal(r.summary.comparisons.at(-1).verdict, 'inconclusive', 'two paired chunks: no 95% interval');
  assert.match(r.summary.headline.at(-1).note, /not enough evidence yet whether js_train_on_batch or js_fit is faster .*; losses DIFFER from fit$/);
  assert.match(r.summary.reading, /not enough evidence yet whether js_train_on_batch or js_fit is faster \(3\.3 vs 3 µs per step; time ratio js_train_on_batch\/js_fit = .* over only 2 rounds: too few for a 95% interval\): .*, and the losses DIFFER from fit's\.$/);
});

test('overhead: js_per_call at each N, its fitted line, points, runs and sentences', () => {
  let ns;
  const [core, r] = runWith({ experiment: 'overhead', n_min: 10, n_max: 1000, points: 3, chunk_ms: 0.1, repeats: 1 }, (c) => {
    ns = c.series.reference.n;
    const points = ns.map((n) => ({ n, chunk_us: [2 + 0.01 * n, 1000, 2 + 0.01 * n], steps_per_chunk: 8, steps: 40, diverged: false }));
    return { variants: [{ variant: 'js_per_call', points }] };
  });
  assert.deepEqual(ns, [10, 100, 1000]);
  assert.deepEqual(r.series.js_per_call, { n: ns, us_per_step: [2.1, 3, 12] });
  r.series.js_per_call_fit.us_per_step.forEach((t, i) => near(t, [2.1, 3, 12][i], `fit at ${ns[i]}`));
  assert.deepEqual(r.points.slice(-3).map((p) => Object.keys(p)), ns.map(() => ['n', 'mode', 'us_per_step', 'steps_per_chunk', 'steps', 'diverged']));
  assert.deepEqual(r.points.at(-1), { n: 1000, mode: 'js_per_call', us_per_step: 12, steps_per_chunk: 8, steps: 40, diverged: false });
  const run = r.runs.at(-1);
  assert.deepEqual(Object.keys(run), ['mode', 'a_us', 'b_ns_per_point', 'crossover_n', 'us_at_n_min', 'us_at_n_max', 'measured_in', 'diverged']);
  near(run.a_us, 2, 'a_us');
  near(run.b_ns_per_point, 10, 'b_ns_per_point');
  near(run.crossover_n, 200, 'crossover_n');
  assert.equal(run.us_at_n_max, 12);
  const s = r.summary;
  assert.equal(s.a_fixed_us.js_per_call, run.a_us);
  assert.equal(s.crossover_n.js_per_call, run.crossover_n);
  assert.equal(s.measured_where, 'eager, traced, compiled, reference: C++ in WebAssembly (the loop in the core); '
    + 'js_per_call: JavaScript → WebAssembly (browser worker) (a reference step inside)');
  assert.deepEqual(s.headline.at(-1), { label: 'js_per_call: a + b·N', value: '2 µs + 10 ns × N', note: 'crossover N = a/b = 200' });
  assert.equal(s.reading, `${core.summary.reading} Called from JavaScript with the N points copied in each call, a step cost `
    + 'a fixed 2 µs plus 10 ns per point.');
});

test('other experiments ignore measurements; a measurement without its fields is an Error', () => {
  const [core, same] = runWith({ experiment: 'standardization', max_iterations: 200 }, () => ({}));
  assert.deepEqual(same.runs, core.runs);
  assert.deepEqual(same.summary.comparisons.map((c) => c.id), core.summary.comparisons.map((c) => c.id));
  const run = ok(m.createRun(JSON.stringify(CG)));
  try {
    while (!ok(run.advance(50)));
    assert.ok(run.addMeasurements('{}') instanceof Error);
    assert.ok(run.addMeasurements('not json') instanceof Error);
    assert.ok(run.addMeasurements(JSON.stringify({ same_losses: true, variants: [{ variant: 'js_fit' }] })) instanceof Error);
    assert.ok(!(run.result() instanceof Error), 'the run still gives its own result');
  } finally {
    run.delete();
  }
});

// call_granularity.cpp and overhead.cpp compile without unwinding code in wasm (CMakeLists.txt):
// what the browser measured is read and checked whole in browser_measurements.cpp before they hold
// any of it, and everything they read of it later must not throw. So every bad shape is refused by
// addMeasurements itself, leaves the run's own result, and leaks nothing.
test('bad measurements are refused whole: an Error each, the run\'s own result after, the heap flat', () => {
  const OV = { experiment: 'overhead', n_min: 10, n_max: 1000, points: 3, chunk_ms: 0.1, repeats: 1 };
  const cases = [
    [CG, (c) => {
      const fit = c.runs.find((x) => x.variant === 'fit');
      const good = () => ({ same_losses: true, variants: [epochVariant('js_fit', [2, 3], fit), epochVariant('js_train_on_batch', [4, 5], fit)] });
      const bad = (change) => { const g = good(); change(g); return g; };
      return [{}, [], { same_losses: true, variants: 3 }, { same_losses: true, variants: [{ variant: 'js_fit' }] },
        bad((g) => { g.variants[1].chunk_us = [4]; }),            // unpaired chunks
        bad((g) => { g.variants[0].chunk_us = []; }),
        bad((g) => { g.variants[0].chunk_us = [2, 'x']; }),
        bad((g) => { g.variants[1].chunk_us = [0, 5]; }),         // not a positive time
        bad((g) => { g.variants[0].diverged = 'no'; }),
        bad((g) => { g.variants[1].final_loss = 'low'; }),
        bad((g) => { g.variants[0].total_ms = null; }),
        bad((g) => { delete g.variants[1].series; }),
        bad((g) => { g.variants[0].variant = 7; }),
        bad((g) => { g.variants[0].total_ms = -1; }),
        bad((g) => { g.variants[1].series = [1, 2]; }),
        JSON.stringify(good()).replace('"total_ms":20', '"total_ms":1e400'),   // read as infinity
        JSON.stringify(good()).replace('"chunk_us":[2,3]', '"chunk_us":[2,1e400]'),
        bad((g) => { delete g.same_losses; })];
    }],
    [OV, (c) => {
      const points = () => c.series.reference.n.map((n) => ({ n, chunk_us: [2, 3], steps_per_chunk: 8, steps: 40, diverged: false }));
      const bad = (change) => { const p = points(); change(p); return { variants: [{ variant: 'js_per_call', points: p }] }; };
      return [{}, { variants: [{ variant: 'js_per_call' }] }, { variants: [{ variant: 'js_per_call', points: {} }] },
        bad((p) => { p[1].chunk_us = [-1]; }), bad((p) => { p[0].n = '10'; }), bad((p) => { delete p[2].steps; }),
        bad((p) => { p[1].diverged = 0; }), bad((p) => { p[0].steps = 'many'; }), bad((p) => { p.splice(1); })];   // one N: no line
    }],
  ];
  for (const [config, badOnes] of cases) {
    const run = ok(m.createRun(JSON.stringify(config)));
    try {
      while (!ok(run.advance(50)));
      const own = ok(run.result());
      const texts = badOnes(JSON.parse(own)).map((b) => (typeof b === 'string' ? b : JSON.stringify(b)));
      for (const t of texts) run.addMeasurements(t);   // once first: what is allocated once (a message's catalog) is not a leak
      const start = m.heapStats().used_bytes;
      for (let i = 0; i < 20; i++) {
        for (const t of texts) assert.ok(run.addMeasurements(t) instanceof Error, `${config.experiment}: ${t} accepted`);
      }
      assert.ok(m.heapStats().used_bytes - start <= 1024, `${config.experiment}: malloc in use ${start} -> ${m.heapStats().used_bytes} bytes`);
      assert.equal(ok(run.result()), own, 'the run still gives its own result');
    } finally {
      run.delete();
    }
  }
});

// ... and what is accepted, however extreme, is read back by result() without a throw: the heap
// stays flat over measurements given again and again, each result read.
test('extreme but valid measurements: accepted, read back whole, the heap flat', () => {
  const run = ok(m.createRun(JSON.stringify(CG)));
  try {
    while (!ok(run.advance(50)));
    const fit = JSON.parse(ok(run.result())).runs.find((x) => x.variant === 'fit');
    const edges = [
      { same_losses: false, variants: [epochVariant('js_fit', [1e-300], fit), epochVariant('js_train_on_batch', [1e300], fit, { final_loss: null, diverged: true })] },
      { same_losses: true, variants: [epochVariant('js_fit', [5, 5, 5], fit, { steps: 0, total_ms: 0 }), epochVariant('js_train_on_batch', [5, 5, 5], fit)] },
    ].map((e) => JSON.stringify(e));
    for (const e of edges) { ok(run.addMeasurements(e)); ok(run.result()); }
    const start = m.heapStats().used_bytes;
    for (let i = 0; i < 20; i++) {
      for (const e of edges) {
        ok(run.addMeasurements(e));
        const r = JSON.parse(ok(run.result()));
        assert.deepEqual(r.runs.slice(-2).map((x) => x.variant), ['js_fit', 'js_train_on_batch']);
      }
    }
    assert.ok(m.heapStats().used_bytes - start <= 1024, `malloc in use ${start} -> ${m.heapStats().used_bytes} bytes`);
  } finally {
    run.delete();
  }
});

// The browser variants on seed 001's small model (model=seed001_small): sessionData gives whole
// sequences, trainOnBatch takes a block of them per batch, and both JavaScript-driven variants
// reproduce the core fit's losses bit for bit at every step.
test('js_fit and js_train_on_batch on seed 001\'s small model: batches of whole sequences, the core\'s losses', async () => {
  const { measureJsVariants } = await import('../../web/runtime/js-variants.js');
  const config = { experiment: 'call-granularity', model: 'seed001_small', n: 8, batch: 4, epochs: 2, chunk_ms: 0.1, max_seconds: 0 };
  const data = ok(m.sessionData(JSON.stringify(config)));
  assert.equal(data.y.length, 8);
  assert.equal(data.x.length, 8 * 140 * 30);
  const run = ok(m.createRun(JSON.stringify(config)));
  try {
    while (!ok(run.advance(50)));
    const core = JSON.parse(ok(run.result()));
    const measured = await measureJsVariants({ module: m }, core,
      { cancelled: () => false, progress() {}, nextTurn: async () => {} });
    assert.equal(measured.same_losses, true);
    assert.deepEqual(measured.variants.map((v) => v.variant), ['js_fit', 'js_train_on_batch']);
    for (const v of measured.variants) assert.equal(v.steps, 4, v.variant);
  } finally {
    run.delete();
  }
});
