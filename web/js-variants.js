// Variants that only the browser can measure, run in the worker after the core's own run and merged
// into its result: JavaScript calling the WebAssembly module once per batch (or step), copying the
// data into the wasm heap on every call, as a Keras user calls train_on_batch with a NumPy batch.
//
//   call-granularity  js_train_on_batch: Session.trainOnBatch(xBatch, yBatch) per batch, same
//                     data, order and initial weights as the core's fit, so the losses must match.
//   overhead          js_per_call: LinearSession.step(x, y, lr) per step at each N the core measured
//                     (a reference step inside), fitted to t(N) = a + b·N like the core's modes.
//
// Timing follows the core: whole epochs (or doubling step counts) per chunk of at least chunk_ms,
// the median over chunks, because performance.now() is coarsened to 5-100 µs.
//
//   const merged = await addJsVariants(api, result, { cancelled: () => false, progress, nextTurn });
//   // merged === null when cancelled
import { check } from './looplab-api.js';

const SLICE_MS = 50;   // yield to the event loop (cancel messages) about this often

/** t(N) = a + b·N by least squares weighted by 1/t² (relative error); as fit_cost_line in the core. */
export function fitCostLine(ns, ts) {
  let sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0;
  ns.forEach((n, i) => {
    const t = ts[i], w = 1 / (t * t);
    sw += w; swn += w * n; swnn += w * n * n; swt += w * t; swnt += w * n * t;
  });
  const det = sw * swnn - swn * swn;
  const a = (swnn * swt - swn * swnt) / det;
  const b = (sw * swnt - swn * swt) / det;
  return { a, b, crossover: a > 0 && b > 0 ? a / b : null };
}

const median = (v) => {
  if (!v.length) return 0;
  const s = [...v].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Half the interquartile range, as half_iqr in the core: the scatter of chunk timings. */
export function halfIqr(v) {
  if (v.length < 2) return 0;
  const s = [...v].sort((x, y) => x - y);
  const at = (q) => {
    const pos = q * (s.length - 1), i = Math.floor(pos);
    return i + 1 < s.length ? s[i] + (s[i + 1] - s[i]) * (pos - i) : s[i];
  };
  return (at(0.75) - at(0.25)) / 2;
}

const WHERE = 'JavaScript → WebAssembly (browser worker)';

/** Returns the merged result, or null when cancelled. ctx: {cancelled(), progress(p), nextTurn()}. */
export async function addJsVariants(api, result, ctx) {
  switch (result.experiment) {
    case 'call-granularity': return callGranularity(api.module, result, ctx);
    case 'overhead': return overhead(api.module, result, ctx);
    default: return result;
  }
}

/**
 * Calls step() for about WARM_MS, untimed. NOTE: V8 runs new JS (embind's glue included) in its
 * baseline tiers first; the first few hundred calls cost 10-20x the steady ones. The core's
 * warm_up_engines() does the same for the wasm side.
 */
const WARM_MS = 30;
function warmUp(step) {
  const t0 = performance.now();
  for (let i = 0; i < 5000 && performance.now() - t0 < WARM_MS; i++) step();
}

async function callGranularity(m, result, ctx) {
  const config = JSON.stringify(result.config);
  const { batch, epochs, chunk_ms: chunkMs } = result.config;
  const data = check(m.sessionData(config));
  const warm = check(m.createSession(config));   // a throwaway session: the measured one starts fresh
  try {
    warmUp(() => check(warm.trainOnBatch(data.x.subarray(0, batch), data.y.subarray(0, batch))));
  } finally {
    warm.delete();
  }
  const session = check(m.createSession(config));
  const fit = result.runs.find((r) => r.variant === 'fit');
  const fitLoss = new Map(result.series.fit.step.map((s, i) => [s, result.series.fit.loss[i]]));
  const every = Math.max(1, Math.floor((Math.floor(data.y.length / batch) * epochs) / 500));
  const batches = Math.floor(data.y.length / batch);
  const series = { step: [], loss: [] };
  const chunks = [];
  let chunk = { ms: 0, steps: 0 }, firstEpochMs = 0, totalMs = 0, step = 0, last = NaN, same = true, diverged = false;
  let lastYield = performance.now();
  try {
    for (let e = 0; e < epochs; e++) {
      if (ctx.cancelled()) return null;
      const newPoints = { step: [], loss: [] };
      const t0 = performance.now();
      for (let b = 0; b < batches; b++, step++) {
        last = check(session.trainOnBatch(data.x.subarray(b * batch, (b + 1) * batch), data.y.subarray(b * batch, (b + 1) * batch)));
        if (!Number.isFinite(last)) diverged = true;
        if (step % every === 0) {
          newPoints.step.push(step);
          newPoints.loss.push(Number.isFinite(last) ? last : null);
          if (fitLoss.has(step) && fitLoss.get(step) !== last) same = false;
        }
      }
      const ms = performance.now() - t0;
      totalMs += ms;
      if (e === 0) firstEpochMs = ms;
      else {
        chunk.ms += ms; chunk.steps += batches;
        if (chunk.ms >= chunkMs || e + 1 === epochs) { chunks.push((chunk.ms * 1000) / chunk.steps); chunk = { ms: 0, steps: 0 }; }
      }
      series.step.push(...newPoints.step);
      series.loss.push(...newPoints.loss);
      ctx.progress({ message: `js_train_on_batch: epoch ${e + 1} of ${epochs}`, series: { js_train_on_batch: newPoints } });
      if (performance.now() - lastYield > SLICE_MS) { await ctx.nextTurn(); lastYield = performance.now(); }
    }
  } finally {
    session.delete();
  }
  const us = median(chunks);
  same = same && last === fit.final_loss;
  result.series.js_train_on_batch = series;
  result.runs.push({
    variant: 'js_train_on_batch', measured_in: WHERE, batch_copied_per_call: true, steps: step,
    us_per_step: us, overhead_us_per_call: us - fit.us_per_step, spread_us: halfIqr(chunks), chunks: chunks.length, first_epoch_ms: firstEpochMs, total_ms: totalMs,
    final_loss: diverged ? null : last, diverged, same_losses_as_fit: same,
  });
  const s = result.summary;
  s.us_per_step.js_train_on_batch = us;
  s.overhead_us_per_call.js_train_on_batch = us - fit.us_per_step;
  s.same_losses = s.same_losses && same;
  s.diverged = s.diverged || diverged;
  s.measured_where += `; js_train_on_batch: ${WHERE}. All three ran in this browser tab's worker.`;
  s.headline.push({
    label: 'JS → wasm, per call (median µs)',
    value: us.toPrecision(3),
    note: `overhead ${(us - fit.us_per_step).toPrecision(3)} µs per call; losses ${same ? 'identical to fit' : 'DIFFER from fit'}`,
  });
  const noise = fit.spread_us + halfIqr(chunks);
  const within = Math.abs(us - fit.us_per_step) <= noise;
  s.reading += ` Called from JavaScript once per batch, a step cost ${us.toPrecision(3)} µs: `
    + `${(us - fit.us_per_step).toPrecision(3)} µs of overhead per call over fit`
    + `${within ? `, within the chunk-to-chunk spread (±${noise.toPrecision(2)} µs)` : ''}.`;
  return result;
}

/** Median µs per step: the step count doubles until a chunk lasts chunkMs, then `repeats` chunks. */
async function timeSteps(step, chunkMs, repeats, ctx) {
  const run = (k) => {
    const t0 = performance.now();
    let loss = 0;
    for (let i = 0; i < k; i++) loss = step();
    return { ms: performance.now() - t0, loss };
  };
  let k = 1, r = run(1), diverged = !Number.isFinite(r.loss), steps = 1;
  while (r.ms < chunkMs && !diverged) { k *= 2; r = run(k); steps += k; diverged = !Number.isFinite(r.loss); }
  const perStep = [];
  for (let i = 0; i < repeats && !diverged; i++) {
    if (ctx.cancelled()) return null;
    r = run(k);
    steps += k;
    diverged = !Number.isFinite(r.loss);
    perStep.push((r.ms * 1000) / k);
    if (r.ms > SLICE_MS) await ctx.nextTurn();
  }
  return { us: median(perStep), k, steps, diverged };
}

async function overhead(m, result, ctx) {
  const { lr, chunk_ms: chunkMs, repeats } = result.config;
  const ns = result.series.reference.n;
  const series = { n: [], us_per_step: [] };
  const warmData = check(m.overheadData(ns[0]));
  const warm = check(m.createLinearSession('reference', ns[0]));
  try {
    warmUp(() => check(warm.step(warmData.x, warmData.y, lr)));
  } finally {
    warm.delete();
  }
  let diverged = false;
  for (const n of ns) {
    if (ctx.cancelled()) return null;
    const data = check(m.overheadData(n));
    const session = check(m.createLinearSession('reference', n));
    let t;
    try {
      t = await timeSteps(() => check(session.step(data.x, data.y, lr)), chunkMs, repeats, ctx);
    } finally {
      session.delete();
    }
    if (t === null) return null;
    diverged = diverged || t.diverged;
    series.n.push(n);
    series.us_per_step.push(t.us);
    result.points.push({ n, mode: 'js_per_call', us_per_step: t.us, steps_per_chunk: t.k, steps: t.steps, diverged: t.diverged });
    ctx.progress({ message: `js_per_call: N = ${n.toLocaleString('en-US')}`, series: { js_per_call: { n: [n], us_per_step: [t.us] } } });
    await ctx.nextTurn();
  }
  const f = fitCostLine(series.n, series.us_per_step);
  result.series.js_per_call = series;
  result.series.js_per_call_fit = { n: [...ns], us_per_step: ns.map((n) => f.a + f.b * n) };
  result.runs.push({
    mode: 'js_per_call', a_us: f.a, b_ns_per_point: f.b * 1000, crossover_n: f.crossover,
    us_at_n_min: series.us_per_step[0], us_at_n_max: series.us_per_step.at(-1), measured_in: WHERE, diverged,
  });
  const s = result.summary;
  s.a_fixed_us.js_per_call = f.a;
  s.b_ns_per_point.js_per_call = f.b * 1000;
  s.crossover_n.js_per_call = f.crossover;
  s.diverged = s.diverged || diverged;
  s.measured_where = `eager, traced, reference: C++ in WebAssembly (the loop in the core); js_per_call: ${WHERE} (a reference step inside)`;
  s.headline.push({
    label: 'js_per_call: a + b·N',
    value: `${f.a.toPrecision(3)} µs + ${(f.b * 1000).toPrecision(3)} ns × N`,
    note: `crossover N = a/b = ${f.crossover === null ? 'none (a ≤ 0)' : Math.round(f.crossover).toLocaleString('en-US')}`,
  });
  s.reading += ` Called from JavaScript with the N points copied in each call, a step cost a fixed ${f.a.toPrecision(3)} µs `
    + `plus ${(f.b * 1000).toPrecision(3)} ns per point.`;
  return result;
}
