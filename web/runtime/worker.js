// Module worker: owns the WebAssembly module so the page never freezes. The messages it takes and
// sends are defined in protocol.js; client.js is the page's side.
import { wrap } from './api.js';
import { ANSWER, REQUEST } from './protocol.js';
import { measureJsVariants } from './js-variants.js';
import { addCatalog } from '../util/i18n.js';

const CHUNK_MS = 50;
const post = (msg) => self.postMessage(msg);
/**
 * Said before each call into the module that may take long (creating a run, a chunk, the result, a
 * slice of the JavaScript variants): while busy, the worker cannot answer the page's heartbeat, and
 * the page allows it (client.js). Any later message means the call returned.
 */
const busy = () => post({ type: ANSWER.BUSY });

// The glue script loads while the page compiles the wasm; the INIT message brings the compiled module
// and the English catalog (the module's texts of errors and results are English, as the CLI's).
const glue = import('../../build/wasm/looplab.mjs');
let receiveInit;
const initialized = new Promise((resolve) => { receiveInit = resolve; });

/**
 * Instantiates `module` (a WebAssembly.Module compiled once by the page and shared by all its workers),
 * or, without one, lets the glue fetch and compile looplab.wasm itself (the offline single file).
 */
async function instantiate(module) {
  const { default: createLooplab } = await glue;
  // Once instantiated, the module starts up in one go (its static constructors, then wrap() and
  // READY): say BUSY first, so that a slow device, or a machine busy with other work, missing a few
  // heartbeats meanwhile is not taken for a dead worker (client.js).
  const startUp = { preRun: [busy] };
  if (!module) return createLooplab(startUp);
  return new Promise((resolve, reject) => {
    createLooplab({
      ...startUp,
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(module, imports).then((instance) => done(instance, module), reject);
        return {};   // Emscripten's "instantiating asynchronously" answer
      },
    }).then(resolve, reject);
  });
}

const apiReady = initialized.then(async ({ module, catalogs }) => {
  addCatalog('en', catalogs.en);   // the English of the progress messages this worker says itself (js-variants.js)
  return wrap(await instantiate(module), catalogs);
});

/**
 * While the student reads the page, every mode runs a tiny model once (api.js, warmUp): the engine
 * compiles looplab's own code at its first call and optimizes it in background threads, and that
 * work is done before the first Run instead of slowing its first timed steps. A run that starts
 * sooner does the same warm-up itself first (tests/bench/README.md, cold runs).
 */
const WARM_UP_AFTER_MS = 200;
function warmUpWhenIdle(api) {
  if (active.size) return;
  busy();
  try {
    api.warmUp();
  } catch (e) {  // a returned error stays unsaid: the warm-up is no run, and a run reports its own
    if (isFatal(e)) postCrash(null, e);
  }
}

apiReady.then(
  (api) => {
    post({ type: ANSWER.READY, environment: api.environment() });
    setTimeout(() => warmUpWhenIdle(api), WARM_UP_AFTER_MS);
  },
  (e) => post({ type: ANSWER.ERROR, id: null, message: `could not load the WebAssembly module (looplab.mjs): ${e.message}`,
    i18n: { key: 'status.wasm_failed_worker', args: { error: e.message } } }),
);

/** Resolves on the next turn of the event loop; a MessageChannel avoids setTimeout's 4 ms clamping. */
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
const nextTurn = () => new Promise((resolve) => { waiting.push(resolve); channel.port2.postMessage(0); });

/**
 * A trap (RuntimeError: unreachable, out-of-bounds access, an emscripten abort) or a stack overflow
 * unwinds out of the module and leaves its memory and stack pointer in an unknown state: no later
 * call can be trusted, so the page must replace this worker. Errors the module *returns* are not fatal.
 */
function isFatal(e) {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
}

/** Tells the page that the module trapped (isFatal) while answering request `id` (null: no request). */
function postCrash(id, e) {
  post({ type: ANSWER.FATAL, id, message: `the WebAssembly module crashed (${e.name}: ${e.message})`,
    i18n: { key: 'status.crashed', args: { error: `${e.name}: ${e.message}` } } });
}

/** Runs that are in progress, by request id: {cancelled}. */
const active = new Map();

/** The last finished run, kept for "Run longer" (EXTEND) until the next RUN: {id, handle}. */
let kept = null;
function keep(id, handle) {
  kept?.handle.delete();
  kept = handle ? { id, handle } : null;
}

/** Advances `handle` in chunks, posting progress, until done; false when cancelled on the way. */
async function advanceToEnd(handle, id, state) {
  for (;;) {
    if (state.cancelled) { post({ type: ANSWER.CANCELLED, id }); return false; }
    busy();
    const done = handle.advance(CHUNK_MS);
    post({ type: ANSWER.PROGRESS, id, progress: handle.progress() });
    if (done) return true;
    await nextTurn();
  }
}

async function run(api, id, config, state) {
  keep(null, null);
  let handle = null;
  try {
    busy();
    handle = api.createRun(config);
    if (!(await advanceToEnd(handle, id, state))) return;
    // Variants only a browser can measure (JS calling the module per batch) join the run's result.
    busy();
    const measured = await measureJsVariants(api, handle.result(), {
      cancelled: () => state.cancelled,
      nextTurn: async () => { await nextTurn(); busy(); },
      progress: (progress) => post({ type: ANSWER.PROGRESS, id, progress }),
    });
    if (measured === null) { post({ type: ANSWER.CANCELLED, id }); return; }
    if (measured) { busy(); handle.addMeasurements(measured); }
    post({ type: ANSWER.RESULT, id, result: handle.result() });
    keep(id, handle);
    handle = null;
  } finally {
    handle?.delete();
  }
}

/** "Run longer": the kept run takes more paired timing rounds, then answers with its new result. */
async function extend(id, runId, seconds, state) {
  if (!kept || kept.id !== runId) throw new Error('run longer: that run is no longer kept (a newer run replaced it)');
  busy();
  if (!kept.handle.extend(seconds)) throw new Error('run longer: this run has no paired timings to extend');
  if (!(await advanceToEnd(kept.handle, id, state))) return;
  post({ type: ANSWER.RESULT, id, result: kept.handle.result() });
}

self.onmessage = async ({ data: msg }) => {
  const { type, id } = msg;
  // Answered before anything awaits, so the page hears from a worker that is busy loading or between
  // two chunks of a run; only a dead or hung worker stays silent (client.js restarts it).
  if (type === REQUEST.PING) { post({ type: ANSWER.PONG }); return; }
  if (type === REQUEST.INIT) { receiveInit(msg); return; }
  if (type === REQUEST.CANCEL) {          // needs no module; a cancel for a finished run is a no-op
    const state = active.get(id);
    if (state) state.cancelled = true;
    return;
  }
  let state = null;
  if (type === REQUEST.RUN || type === REQUEST.EXTEND) {  // registered before any await: an early cancel finds it
    state = { cancelled: false };
    active.set(id, state);
  }
  try {
    const api = await apiReady;
    busy();                               // a validate may parse a large attached CSV
    if (msg.catalog) api.addCatalog(msg.lang, msg.catalog);
    switch (type) {
      case REQUEST.LIST: post({ type: ANSWER.REPLY, id, value: api.listExperiments(msg.lang) }); break;
      case REQUEST.VALIDATE: post({ type: ANSWER.REPLY, id, value: api.validateConfig(msg.config) }); break;
      case REQUEST.RUN: await run(api, id, msg.config, state); break;
      case REQUEST.EXTEND: await extend(id, msg.run, msg.seconds, state); break;
      default: throw new Error(`unknown request type "${type}"`);
    }
  } catch (e) {
    if (isFatal(e)) postCrash(id, e);
    else post({ type: ANSWER.ERROR, id, message: e instanceof Error ? e.message : String(e), ...(e?.i18n ? { i18n: e.i18n } : {}) });
  } finally {
    if (state) active.delete(id);
  }
};
