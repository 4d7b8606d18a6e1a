// Variants that only the browser can measure, run in the worker after the core's own run and merged
// into its result: JavaScript calling the WebAssembly module once per batch (or step), copying the
// data into the wasm heap on every call, as a Keras user calls train_on_batch with a NumPy batch.
//
//   call-granularity  js_train_on_batch: Session.trainOnBatch(xBatch, yBatch) per batch, and
//                     js_fit: Session.fitEpoch() once per epoch, their epochs interleaved; same
//                     data, order and initial weights as the core's fit, so the losses must match.
//   overhead          js_per_call: LinearSession.step(x, y, lr) per step at each N the core measured
//                     (a reference step inside), fitted to t(N) = a + b·N like the core's modes.
//
// Timing follows the core: whole epochs (or doubling step counts) per chunk of at least chunk_ms,
// the median over chunks, because performance.now() is coarsened to 5-100 µs.
//
//   const merged = await addJsVariants(api, result, { cancelled: () => false, progress, nextTurn });
//   // merged === null when cancelled
import { check } from './api.js';

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

/** Per-epoch timings gathered into chunks of whole epochs lasting at least chunkMs (the first epoch apart). */
class EpochChunks {
  constructor(chunkMs, epochs) { Object.assign(this, { chunkMs, epochs, us: [], ms: 0, steps: 0, firstMs: 0, totalMs: 0 }); }
  add(e, ms, steps) {
    this.totalMs += ms;
    if (e === 0) { this.firstMs = ms; return; }
    this.ms += ms;
    this.steps += steps;
    if (this.ms >= this.chunkMs || e + 1 === this.epochs) { this.us.push((this.ms * 1000) / this.steps); this.ms = 0; this.steps = 0; }
  }
}

/** One epoch, timed: per batch from JS (train_on_batch) or one fitEpoch() call. Returns its losses. */
function jsEpoch(session, data, batch, batches) {
  const losses = new Float32Array(batches);
  for (let b = 0; b < batches; b++) {
    losses[b] = check(session.trainOnBatch(data.x.subarray(b * batch, (b + 1) * batch), data.y.subarray(b * batch, (b + 1) * batch)));
  }
  return losses;
}

/**
 * Two variants driven from JavaScript, their epochs interleaved (alternating which goes first) so both
 * see the same machine load and the same clock: js_fit calls the core's fit once per epoch,
 * js_train_on_batch calls train_on_batch once per batch. Its overhead per call is measured against
 * js_fit; the core's own timings of fit and train_on_batch stay as they are.
 */
async function callGranularity(m, result, ctx) {
  const config = JSON.stringify(result.config);
  const { batch, epochs, chunk_ms: chunkMs } = result.config;
  const data = check(m.sessionData(config));
  const batches = Math.floor(data.y.length / batch);
  const warm = check(m.createSession(config));   // a throwaway session: the measured ones start fresh
  try {
    warmUp(() => check(warm.trainOnBatch(data.x.subarray(0, batch), data.y.subarray(0, batch))));
    warmUp(() => check(warm.fitEpoch()));
  } finally {
    warm.delete();
  }
  const every = Math.max(1, Math.floor((batches * epochs) / 500));
  const names = ['js_fit', 'js_train_on_batch'];
  const v = Object.fromEntries(names.map((n) => [n, {
    session: check(m.createSession(config)), chunks: new EpochChunks(chunkMs, epochs),
    series: { step: [], loss: [] }, last: NaN, diverged: false,
  }]));
  const coreFit = result.runs.find((r) => r.variant === 'fit');
  const coreLoss = new Map(result.series.fit.step.map((st, i) => [st, result.series.fit.loss[i]]));
  let same = true, sameAsCore = true, lastYield = performance.now();
  try {
    for (let e = 0; e < epochs; e++) {
      if (ctx.cancelled()) return null;
      const losses = {};
      for (const name of e % 2 ? [...names].reverse() : names) {
        const t0 = performance.now();
        losses[name] = name === 'js_fit' ? check(v[name].session.fitEpoch()) : jsEpoch(v[name].session, data, batch, batches);
        v[name].chunks.add(e, performance.now() - t0, batches);
      }
      const fresh = {};
      for (const name of names) {
        const x = v[name], l = losses[name];
        fresh[name] = { step: [], loss: [] };
        l.forEach((loss, b) => {
          const st = e * batches + b;
          if (!Number.isFinite(loss)) x.diverged = true;
          if (st % every === 0) { fresh[name].step.push(st); fresh[name].loss.push(Number.isFinite(loss) ? loss : null); }
          if (coreLoss.has(st) && coreLoss.get(st) !== loss) sameAsCore = false;
        });
        x.last = l[l.length - 1];
        x.series.step.push(...fresh[name].step);
        x.series.loss.push(...fresh[name].loss);
      }
      if (!losses.js_fit.every((l, i) => l === losses.js_train_on_batch[i])) same = false;
      ctx.progress({ message: `JS-driven variants: epoch ${e + 1} of ${epochs}`, series: fresh });
      if (performance.now() - lastYield > SLICE_MS) { await ctx.nextTurn(); lastYield = performance.now(); }
    }
  } finally {
    for (const name of names) v[name].session.delete();
  }
  const us = (name) => median(v[name].chunks.us);
  const fitUs = us('js_fit'), tobUs = us('js_train_on_batch');
  for (const name of names) {
    const x = v[name];
    result.series[name] = x.series;
    result.runs.push({
      variant: name, measured_in: WHERE, batch_copied_per_call: name !== 'js_fit', steps: batches * epochs,
      us_per_step: us(name), overhead_us_per_call: us(name) - fitUs, spread_us: halfIqr(x.chunks.us), chunks: x.chunks.us.length,
      first_epoch_ms: x.chunks.firstMs, total_ms: x.chunks.totalMs,
      final_loss: x.diverged ? null : x.last, diverged: x.diverged, same_losses_as_fit: same && sameAsCore && x.last === coreFit.final_loss,
    });
  }
  const s = result.summary;
  const jsSame = same && sameAsCore;
  const noise = halfIqr(v.js_fit.chunks.us) + halfIqr(v.js_train_on_batch.chunks.us);
  s.us_per_step.js_fit = fitUs;
  s.us_per_step.js_train_on_batch = tobUs;
  s.overhead_us_per_call.js_train_on_batch = tobUs - fitUs;
  s.same_losses = s.same_losses && jsSame;
  s.diverged = s.diverged || v.js_fit.diverged || v.js_train_on_batch.diverged;
  s.measured_where += `; js_fit and js_train_on_batch: ${WHERE}, their epochs interleaved, timed with `
    + 'performance.now(); js_train_on_batch\'s overhead is against js_fit. All four ran in this browser tab\'s worker.';
  s.headline.push({
    label: 'JS → wasm per batch vs fit (median µs)',
    value: `${tobUs.toPrecision(3)} vs ${fitUs.toPrecision(3)}`,
    note: `overhead ${(tobUs - fitUs).toPrecision(3)} µs per call (±${noise.toPrecision(2)}); losses ${jsSame ? 'identical to fit' : 'DIFFER from fit'}`,
  });
  s.reading += ` Driven from JavaScript with the epochs interleaved, a step cost ${tobUs.toPrecision(3)} µs called once per batch `
    + `against ${fitUs.toPrecision(3)} µs inside fit: ${(tobUs - fitUs).toPrecision(3)} µs of overhead per call`
    + `${Math.abs(tobUs - fitUs) <= noise ? `, within the chunk-to-chunk spread (±${noise.toPrecision(2)} µs)` : ''}.`;
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
