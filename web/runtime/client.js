// The page's side of the worker protocol (protocol.js): one promise per request id, progress as
// callbacks, cancel by id, and every pending request settled when the worker dies or is terminated.
//
//   const client = new LooplabClient(new URL('./worker.js', import.meta.url), { module: compileOnce, languageFile });
//   const env = await client.ready;
//   const run = client.run(config, (progress) => plot(progress.series));
//   run.cancel();                       // resolves run.done with {cancelled: true}
//   const { result, cancelled } = await run.done;
//   client.onRestart = (err) => show(err.message);   // the module crashed; a fresh worker is running
//   client.terminate();                 // rejects everything pending (isTerminated(err) is true)
//
// `module` is a function returning a promise of the compiled WebAssembly.Module: each worker (and
// each restart) gets the same one, so a page compiles the wasm once however many widgets it has
// (connect.js). Without it, each worker fetches and compiles the wasm itself.
//
// The texts come from the language files (dist/lang/<lang>.json, written at build time: the catalog,
// the experiment list and every describe in one language): `languageFile(lang)` gives one (connect.js
// fetches each once per page). list() and describe() answer from them before the module has loaded
// (describe() from them alone: the shipped module has no describe); catalog(lang) gives the page its
// catalog, and the worker gets the English one with INIT. The offline file, which has no URL to
// fetch, passes its language files inline, as a `languageFile` that reads them.
//
// A worker script on another origin (a CDN) cannot be started directly: the worker starts from a
// same-origin Blob that imports it (the script and the module it loads then need CORS). A page
// whose Content-Security-Policy forbids blob: workers gets a one-line error saying so.
//
// Faults: if the module traps (the worker reports FATAL), the worker raises an uncaught error after it
// was ready, or it stops answering the heartbeat (it called close(), was killed, or hangs outside a
// module call it announced), every
// pending request is rejected with an Error saying what happened, the worker is terminated and a fresh
// one started, so the next request works. A worker that never became ready (missing build, syntax
// error) is not restarted: that would only fail again.
import { ANSWER, REQUEST } from './protocol.js';

const TERMINATED = 'WorkerTerminated';
// Heartbeat: a PING every HEARTBEAT_MS; SILENT_TICKS ticks in a row without any message from the
// worker means it is gone: 750 ms after its last message, so 600-750 ms after it died. Counted in
// ticks, not in elapsed time, so a page whose timers were throttled (a background tab) or that was
// busy itself does not mistake its own delay for a dead worker. A worker that said BUSY is inside one
// module call (a run's chunk is ~50 ms, but one step of a large config can take seconds, the default
// matrix's longest ~1.7 s) or starting the module up (worker.js): it is given BUSY_LIMIT_MS.
const HEARTBEAT_MS = 150;
const SILENT_TICKS = 5;
const BUSY_LIMIT_MS = 60_000;

/** True for the rejection of a request that was pending when its client was terminated. */
export const isTerminated = (err) => err?.name === TERMINATED;

/**
 * `err`, whose English message is for a host's code and the console, with the same said as a message
 * {key, args} (core/i18n: status.*), which the page shows in the reader's language (util/i18n.js errorText).
 */
const said = (err, key, args = {}) => Object.assign(err, { i18n: { key, args } });

/** An Error for which isTerminated() is true. */
export function terminatedError(reason) {
  const err = new Error(reason);
  err.name = TERMINATED;
  return err;
}

/**
 * A module worker from `url`, and `done()` to call once it has loaded. A worker script must be
 * same-origin, so one on another origin (the widget script loaded from a CDN) is imported by a
 * same-origin Blob instead; done() then releases the Blob's URL.
 */
function startWorker(url) {
  const href = new URL(url, location.href).href;
  if (!isCrossOrigin(href)) return { worker: new Worker(href, { type: 'module' }), done: () => {} };
  const blobUrl = URL.createObjectURL(new Blob([`import ${JSON.stringify(href)};`], { type: 'text/javascript' }));
  try {
    return { worker: new Worker(blobUrl, { type: 'module' }), done: () => URL.revokeObjectURL(blobUrl) };
  } catch (e) {
    URL.revokeObjectURL(blobUrl);
    throw e;
  }
}

const isCrossOrigin = (url) => {
  const u = new URL(url, location.href);
  return u.protocol !== 'blob:' && u.origin !== location.origin;
};

/**
 * Why a worker failed before it was ready, in one line. A CSP that refuses the Blob (worker-src
 * without blob:) is reported to the page as a securitypolicyviolation, which `refusedBlob` saw; the
 * CDN's own script refused inside the worker is not, so a cross-origin failure names both needs.
 */
function startFailure(url, detail, refusedBlob) {
  if (refusedBlob) {
    return 'looplab cannot start its worker: this page\'s Content-Security-Policy does not allow blob: workers, '
      + 'which a widget loaded from another origin needs (add blob: to worker-src, or embed the experiment with its iframe, embed.html)';
  }
  const hint = isCrossOrigin(url)
    ? ` (a page with a Content-Security-Policy must allow blob: and ${new URL(url).origin} in worker-src, or embed the experiment with its iframe, embed.html)`
    : '';
  return `worker failed: ${detail || `could not start ${url}`}${hint}`;
}

const noTexts = (lang) => new Error(`looplab could not load its texts in ${lang} (its language file, lang/${lang}.json)`);   // i18n: no catalog to say it with
export class LooplabClient {
  /**
   * languageFile: lang -> Promise of the build's language file {catalog, list, describe}, or of null
   * (connect.js; the offline file reads its inline copies); savedRun: id -> Promise of the
   * experiment's saved run, or of null (connect.js).
   */
  constructor(workerUrl, { module = null, languageFile = async () => null, savedRun = async () => null } = {}) {
    this.workerUrl = workerUrl;
    this.module = module;
    this.languageFile = languageFile;
    this.savedRun = savedRun;
    this.nextId = 1;
    this.pending = new Map();  // id -> {resolve, reject, onProgress}
    this.restarts = 0;
    this.terminated = false;
    this.onRestart = null;
    this.start();
  }

  start() {
    this.wasReady = false;
    this.failed = null;
    this.ready = new Promise((resolve, reject) => { this.readyHandlers = { resolve, reject }; });
    if (this.restarts > 0) this.ready.catch(() => {});  // nobody awaits a restarted worker's ready
    let refusedBlob = false;
    const onViolation = (e) => { if (e.blockedURI === 'blob' || e.blockedURI.startsWith('blob:')) refusedBlob = true; };
    globalThis.document?.addEventListener('securitypolicyviolation', onViolation);
    let loaded = () => {};
    this.ready.finally(() => {
      globalThis.document?.removeEventListener('securitypolicyviolation', onViolation);
      loaded();
    }).catch(() => {});
    try {
      ({ worker: this.worker, done: loaded } = startWorker(this.workerUrl));
    } catch (e) {   // a browser may refuse synchronously (SecurityError) instead of by an error event
      this.worker = null;
      this.failAll(new Error(startFailure(this.workerUrl, e.message, e.name === 'SecurityError' && isCrossOrigin(this.workerUrl))));
      return;
    }
    this.worker.onmessage = ({ data }) => this.dispatch(data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (this.wasReady) {
        const error = e.message || 'uncaught error';   // i18n: the browser's own words, in English or the browser's language
        this.restart(`the worker failed (${error})`, { key: 'status.worker_failed', args: { error } });
        return;
      }
      clearInterval(this.heartbeat);
      // The violation event may come after the error event: decide on the next turn.
      setTimeout(() => this.failAll(new Error(startFailure(this.workerUrl, e.message, refusedBlob))), 0);
    };
    const worker = this.worker;
    const english = this.catalog('en');
    english.catch(() => {});   // said through failAll below, once the module has come
    Promise.resolve(this.module?.()).then(
      async (module) => {
        const catalogs = { en: await english };
        if (this.worker === worker) worker.postMessage({ type: REQUEST.INIT, module: module || null, catalogs });
      },
      (e) => { if (this.worker === worker) this.failAll(said(new Error(`could not load the WebAssembly module: ${e.message}`), 'status.wasm_failed', { error: e.message })); },
    ).catch((e) => { if (this.worker === worker) this.failAll(e); });
    this.startHeartbeat();
  }

  /** Pings the worker every tick; once it has said anything, a long silence (see SILENT_TICKS) ends it. */
  startHeartbeat() {
    this.heard = false;           // not before its first message: its script may still be loading
    this.silentTicks = 0;
    this.busySince = null;
    this.heartbeat = setInterval(() => {
      if (this.heard && ++this.silentTicks >= SILENT_TICKS
          && (this.busySince === null || performance.now() - this.busySince > BUSY_LIMIT_MS)) {
        const what = 'the worker stopped responding (it closed, was killed or hangs)';
        if (this.wasReady) this.restart(what, { key: 'status.silent', args: {} });
        else { this.stopWorker(); this.failAll(said(new Error(what), 'status.silent')); }   // as for any worker that never became ready
        return;
      }
      this.worker.postMessage({ type: REQUEST.PING });
    }, HEARTBEAT_MS);
  }

  /** Stops the worker for good: every pending request (and `ready`, if still pending) is rejected. */
  terminate(reason = 'the worker was terminated') {
    if (this.terminated) return;
    this.terminated = true;
    this.stopWorker();
    this.failAll(terminatedError(reason));
  }

  stopWorker() {
    clearInterval(this.heartbeat);
    if (!this.worker) return;
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
  }

  /** Rejects everything pending with `what` (English; `message`: the same as {key, args}), replaces the worker, then tells onRestart. */
  restart(what, message = null) {
    const err = said(new Error(`${what}; a fresh worker was started, so you can run again`), 'status.restarted', { what: message || what });
    err.name = 'WorkerCrash';
    this.stopWorker();
    this.failAll(err);
    this.restarts += 1;
    this.start();
    this.onRestart?.(err);
  }

  dispatch(msg) {
    // Any message shows the worker alive; BUSY says it may now be silent for a while.
    this.heard = true;
    this.silentTicks = 0;
    this.busySince = msg.type === ANSWER.BUSY ? performance.now() : null;
    if (msg.type === ANSWER.PONG || msg.type === ANSWER.BUSY) return;
    if (msg.type === ANSWER.READY) { this.wasReady = true; this.readyHandlers.resolve(msg.environment); return; }
    if (msg.type === ANSWER.ERROR && msg.id === null) { this.failAll(Object.assign(new Error(msg.message), msg.i18n ? { i18n: msg.i18n } : {})); return; }
    if (msg.type === ANSWER.FATAL) { this.restart(msg.message, msg.i18n); return; }
    const p = this.pending.get(msg.id);
    if (!p) return;                                    // a late message for a settled request
    switch (msg.type) {
      case ANSWER.PROGRESS: p.onProgress?.(msg.progress); break;
      case ANSWER.REPLY: this.settle(msg.id).resolve(msg.value); break;
      case ANSWER.RESULT: this.settle(msg.id).resolve({ result: msg.result, cancelled: false }); break;
      case ANSWER.CANCELLED: this.settle(msg.id).resolve({ result: null, cancelled: true }); break;
      case ANSWER.ERROR: this.settle(msg.id).reject(Object.assign(new Error(msg.message), msg.i18n ? { i18n: msg.i18n } : {})); break;
      default: break;
    }
  }

  settle(id) {
    const p = this.pending.get(id);
    this.pending.delete(id);
    return p;
  }

  failAll(err) {
    this.failed = err;               // and every later request, until a restart
    this.readyHandlers.reject(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  request(msg, onProgress) {
    const id = this.nextId++;
    if (this.terminated) return { id, promise: Promise.reject(terminatedError('the worker was terminated')) };
    if (this.failed) return { id, promise: Promise.reject(this.failed) };
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    this.worker?.postMessage({ ...msg, id });   // no worker: it could not start, and failAll said why
    return { id, promise };
  }

  /**
   * The catalog of `lang` ({key: template}), its language file's. Rejects when there is none, in
   * English: without a catalog there is no other language to say it in.
   */
  async catalog(lang) {
    const found = (await this.languageFile(lang))?.catalog;
    if (found) return found;
    throw noTexts(lang);
  }

  /** The experiments' ids, titles and questions, the texts in `lang` (en, zh-CN, id). */
  async list(lang = 'en') {
    const list = (await this.languageFile(lang))?.list;   // a copy, as the worker's answer is one
    if (this.terminated) throw terminatedError('the worker was terminated');   // as every request of a terminated client
    return list ? structuredClone(list) : this.request({ type: REQUEST.LIST, lang, catalog: await this.catalog(lang) }).promise;
  }
  /** describe(experiment) of the core: parameters, plots and every text in `lang`. */
  async describe(experiment, lang = 'en') {
    const d = (await this.languageFile(lang))?.describe;
    if (this.terminated) throw terminatedError('the worker was terminated');
    if (!d) throw noTexts(lang);
    if (!Object.hasOwn(d, experiment)) throw new Error(`looplab has no experiment "${experiment}"`);   // i18n: as noTexts
    return structuredClone(d[experiment]);
  }
  /** Resolves with the resolved config, rejects with the core's one-line message. */
  validate(config) { return this.request({ type: REQUEST.VALIDATE, config: JSON.stringify(config) }).promise; }

  /** Starts a run; returns {id, done: Promise<{result, cancelled}>, cancel()}. */
  run(config, onProgress) {
    return this.cancellable({ type: REQUEST.RUN, config: JSON.stringify(config) }, onProgress);
  }

  /** "Run longer": the finished run `runId` (the last one) takes more paired timing rounds for up to `seconds`; as run(). */
  extend(runId, seconds, onProgress) {
    return this.cancellable({ type: REQUEST.EXTEND, run: runId, seconds }, onProgress);
  }

  cancellable(message, onProgress) {
    const { id, promise } = this.request(message, onProgress);
    const worker = this.worker;                        // a cancel after a restart goes nowhere
    return { id, done: promise, cancel: () => { if (!this.terminated) worker?.postMessage({ type: REQUEST.CANCEL, id }); } };
  }
}
