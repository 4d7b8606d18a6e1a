// Variants that only the browser can measure, run in the worker after the core's own run:
// JavaScript calling the WebAssembly module once per batch (or step), copying the data into the
// wasm heap on every call, as a Keras user calls train_on_batch with a NumPy batch.
//
//   call-granularity  js_train_on_batch: Session.trainOnBatch(xBatch, yBatch) per batch, and
//                     js_fit: Session.fitEpoch() once per epoch, their epochs interleaved; both
//                     sessions run fit's traced step (createSession), with the same data, order
//                     and initial weights as the core's fit, so the losses must match bit for bit
//                     and their difference is the JS → wasm call boundary and the copy.
//   overhead          js_per_call: LinearSession.step(x, y, lr) per step at each N the core
//                     measured (a reference step inside).
//
// This file only measures: it times whole epochs (or doubling step counts) in chunks of at least
// chunk_ms, as the core does, because performance.now() is coarsened to 5-100 µs, and records the
// losses the calls return. The run itself (Run.addMeasurements: call_granularity.cpp,
// overhead.cpp) makes the measurements part of its runs, series, summary and sentences, with the
// same median, spread and cost-line fit as its own variants.
//
//   const measured = await measureJsVariants(api, result, { cancelled: () => false, progress, nextTurn });
//   // undefined: nothing to measure for this experiment; null: cancelled
//   if (measured) run.addMeasurements(measured);
import { check } from './api.js';
import { render } from '../util/i18n.js';

const SLICE_MS = 50;   // yield to the event loop (cancel messages) about this often

/**
 * What the browser-only variants of `result`'s experiment measure: the measurements, undefined when
 * it has none, or null when cancelled. ctx: {cancelled(), progress(p), nextTurn()}.
 */
export async function measureJsVariants(api, result, ctx) {
  const measure = MEASURES[result.experiment];
  if (!measure) return undefined;
  return measure(api.module, result, ctx);
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

// ---- call-granularity

/**
 * One JavaScript-driven variant's measurements: per-epoch times gathered into chunks of whole
 * epochs (the first epoch, which includes the trace, apart; measureCallGranularity closes the two
 * variants' chunks at the same epochs, so chunk i of both is a pair: paired.hpp), and its
 * losses at the steps where the core recorded fit's loss (the core's series), compared with the core's.
 */
class EpochVariant {
  constructor(name, session, { chunkMs, epochs, coreLoss }) {
    Object.assign(this, { name, session, chunkMs, epochs, coreLoss });
    this.chunkUs = [];
    this.chunk = { ms: 0, steps: 0 };
    this.firstMs = 0;
    this.totalMs = 0;
    this.steps = 0;
    this.series = { step: [], loss: [] };
    this.last = NaN;
    this.diverged = false;
    this.sameAsCore = true;
  }

  /** Times epoch `e` (`epoch()` returns its losses) and records it: {losses, fresh} (fresh: new points). */
  run(e, epoch) {
    const t0 = performance.now();
    const losses = epoch();
    this.addTime(e, performance.now() - t0, losses.length);
    return { losses, fresh: this.record(losses) };
  }

  addTime(e, ms, steps) {
    this.totalMs += ms;
    if (e === 0) { this.firstMs = ms; return; }
    this.chunk.ms += ms;
    this.chunk.steps += steps;
  }

  closeChunk() {
    if (this.chunk.steps > 0) this.chunkUs.push((this.chunk.ms * 1000) / this.chunk.steps);
    this.chunk = { ms: 0, steps: 0 };
  }

  /** Keeps the losses at the core's recorded steps; returns those new points (for the live plot). */
  record(losses) {
    const fresh = { step: [], loss: [] };
    losses.forEach((loss, b) => {
      const step = this.steps + b;
      if (!Number.isFinite(loss)) this.diverged = true;
      if (!this.coreLoss.has(step)) return;
      if (this.coreLoss.get(step) !== loss) this.sameAsCore = false;
      fresh.step.push(step);
      fresh.loss.push(Number.isFinite(loss) ? loss : null);
    });
    this.steps += losses.length;
    this.last = losses[losses.length - 1];
    this.series.step.push(...fresh.step);
    this.series.loss.push(...fresh.loss);
    return fresh;
  }

  measured() {
    return {
      variant: this.name, chunk_us: this.chunkUs, first_epoch_ms: this.firstMs, total_ms: this.totalMs,
      steps: this.steps, final_loss: Number.isFinite(this.last) ? this.last : null, diverged: this.diverged,
      series: this.series,
    };
  }
}

/** One epoch from JavaScript, one trainOnBatch call per batch (a copy into the wasm heap each). */
function epochPerBatch(session, data, batch, batches) {
  const per = data.x.length / data.y.length;  // x's floats per example: 1, or a sequence's
  const losses = new Float32Array(batches);
  for (let b = 0; b < batches; b++) {
    losses[b] = check(session.trainOnBatch(data.x.subarray(b * batch * per, (b + 1) * batch * per), data.y.subarray(b * batch, (b + 1) * batch)));
  }
  return losses;
}

/** Warms both call paths up on a throwaway session: the measured ones start fresh. */
function warmUpSessions(m, config, data, batch) {
  const warm = check(m.createSession(config));
  try {
    warmUp(() => check(warm.trainOnBatch(data.x.subarray(0, batch * data.x.length / data.y.length), data.y.subarray(0, batch))));
    warmUp(() => check(warm.fitEpoch()));
  } finally {
    warm.delete();
  }
}

const sameLosses = (a, b) => a.length === b.length && a.every((l, i) => l === b[i]);

/**
 * Two variants driven from JavaScript, their epochs interleaved (alternating which goes first) so both
 * see the same machine load and the same clock: js_fit calls the core's fit once per epoch,
 * js_train_on_batch calls train_on_batch once per batch.
 */
async function measureCallGranularity(m, result, ctx) {
  const config = JSON.stringify(result.config);
  const { batch, epochs, chunk_ms: chunkMs } = result.config;
  const data = check(m.sessionData(config));
  const batches = Math.floor(data.y.length / batch);
  warmUpSessions(m, config, data, batch);
  const coreLoss = new Map(result.series.fit.step.map((st, i) => [st, result.series.fit.loss[i]]));
  const epochOf = {
    js_fit: (v) => () => check(v.session.fitEpoch()),
    js_train_on_batch: (v) => () => epochPerBatch(v.session, data, batch, batches),
  };
  const variants = Object.keys(epochOf).map((name) => new EpochVariant(name, check(m.createSession(config)), { chunkMs, epochs, coreLoss }));
  let same = true;
  let lastYield = performance.now();
  // Epoch 1 is a chunk of its own; then a chunk lasts at least chunkMs for the faster variant.
  let perChunk = 1, inChunk = 0;
  try {
    for (let e = 0; e < epochs; e++) {
      if (ctx.cancelled()) return null;
      const losses = {};
      const fresh = {};
      for (const v of e % 2 ? [...variants].reverse() : variants) {
        ({ losses: losses[v.name], fresh: fresh[v.name] } = v.run(e, epochOf[v.name](v)));
      }
      same = same && sameLosses(losses.js_fit, losses.js_train_on_batch);
      if (e >= 1 && (++inChunk >= perChunk || e + 1 === epochs)) {
        if (e === 1) perChunk = Math.max(1, Math.ceil(chunkMs / Math.max(1e-3, Math.min(...variants.map((v) => v.chunk.ms)))));
        for (const v of variants) v.closeChunk();
        inChunk = 0;
      }
      const i18n = { key: 'cg.js_progress', args: { e: e + 1, n: epochs } };
      ctx.progress({ message: render(i18n), i18n, series: fresh });
      if (performance.now() - lastYield > SLICE_MS) { await ctx.nextTurn(); lastYield = performance.now(); }
    }
  } finally {
    for (const v of variants) v.session.delete();
  }
  return { same_losses: same && variants.every((v) => v.sameAsCore), variants: variants.map((v) => v.measured()) };
}

// ---- overhead

/**
 * µs per step in chunks: the step count doubles until a chunk lasts chunkMs, then `repeats` chunks
 * of that many steps are timed (the core's time_steps, measured from JavaScript).
 */
async function timeSteps(step, chunkMs, repeats, ctx) {
  const run = (k) => {
    const t0 = performance.now();
    let loss = 0;
    for (let i = 0; i < k; i++) loss = step();
    return { ms: performance.now() - t0, loss };
  };
  let k = 1, r = run(1), diverged = !Number.isFinite(r.loss), steps = 1;
  while (r.ms < chunkMs && !diverged) { k *= 2; r = run(k); steps += k; diverged = !Number.isFinite(r.loss); }
  let chunkUs = [];
  while (chunkUs.length < repeats && !diverged) {
    if (ctx.cancelled()) return null;
    r = run(k);
    steps += k;
    diverged = !Number.isFinite(r.loss);
    if (r.ms > SLICE_MS) await ctx.nextTurn();
    // As the core's time_steps: the chunk that ended the doubling may have been slow by accident
    // (the session's cold first call); a chunk far shorter than chunkMs reads a few clock ticks or 0.
    if (r.ms < chunkMs / 4 && k < 2 ** 40) { k *= 2; chunkUs = []; continue; }
    chunkUs.push((r.ms * 1000) / k);
  }
  return { chunk_us: chunkUs, steps_per_chunk: k, steps, diverged };
}

/** js_per_call at N: a fresh reference session, the N points copied in on every step. */
async function measureAt(m, n, config, ctx) {
  const data = check(m.overheadData(n));
  const session = check(m.createLinearSession('reference', n));
  try {
    return await timeSteps(() => check(session.step(data.x, data.y, config.lr)), config.chunk_ms, config.repeats, ctx);
  } finally {
    session.delete();
  }
}

async function measureOverhead(m, result, ctx) {
  const ns = result.series.reference.n;
  const warmData = check(m.overheadData(ns[0]));
  const warm = check(m.createLinearSession('reference', ns[0]));
  try {
    warmUp(() => check(warm.step(warmData.x, warmData.y, result.config.lr)));
  } finally {
    warm.delete();
  }
  const points = [];
  for (const n of ns) {
    if (ctx.cancelled()) return null;
    const t = await measureAt(m, n, result.config, ctx);
    if (t === null) return null;
    points.push({ n, ...t });
    const us = check(m.median(t.chunk_us));   // the core's median, for the live point
    const i18n = { key: 'ov.progress', args: { mode: 'js_per_call', n } };
    ctx.progress({ message: render(i18n), i18n, series: { js_per_call: { n: [n], us_per_step: [us] } } });
    await ctx.nextTurn();
  }
  return { variants: [{ variant: 'js_per_call', points }] };
}

const MEASURES = { 'call-granularity': measureCallGranularity, overhead: measureOverhead };
