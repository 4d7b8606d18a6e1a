// The page's way to a worker: the worker script and the wasm are found next to this module, wherever
// it was loaded from (this repository, dist/, a CDN, a bundler's output), and the wasm is compiled
// once per page, on the main thread, then posted to every worker as a WebAssembly.Module.
//
//   import { connect } from './runtime/connect.js';
//   const client = connect();               // a LooplabClient (client.js)
//
// NOTE: every URL is written as new URL(<string literal>, import.meta.url): build-dist.mjs maps these
// to the flat dist/ names, and bundlers (Vite, webpack, Parcel) copy the files they name.
import { LooplabClient } from './client.js';

const WORKER_URL = new URL('./worker.js', import.meta.url);
const WASM_URL = new URL('../../build/wasm/looplab.wasm', import.meta.url);
// The language files, written at build time (web/tools/language-files.mjs): a language's catalog, and
// what list() and describe() answer in it, so the texts and controls show before the module has
// loaded. No script carries a catalog. One literal URL per language of util/i18n.js.
const LANGUAGE_FILES = {
  en: new URL('../../build/lang/en.json', import.meta.url),
  'zh-CN': new URL('../../build/lang/zh-CN.json', import.meta.url),
  id: new URL('../../build/lang/id.json', import.meta.url),
};

// Each experiment's saved run (web/tools/saved-runs.mjs): its default configuration's result, measured
// at build time under Node.js and drawn, labelled as saved, until the reader's own run replaces it (panel.js).
// One literal URL per experiment (build-dist.mjs checks that none is missing).
const SAVED_RUNS = {
  standardization: new URL('../../build/saved-runs/standardization.json', import.meta.url),
  'execution-modes': new URL('../../build/saved-runs/execution-modes.json', import.meta.url),
  unroll: new URL('../../build/saved-runs/unroll.json', import.meta.url),
  retracing: new URL('../../build/saved-runs/retracing.json', import.meta.url),
  'call-granularity': new URL('../../build/saved-runs/call-granularity.json', import.meta.url),
  overhead: new URL('../../build/saved-runs/overhead.json', import.meta.url),
  matrix: new URL('../../build/saved-runs/matrix.json', import.meta.url),
  pipelines: new URL('../../build/saved-runs/pipelines.json', import.meta.url),
  optimizers: new URL('../../build/saved-runs/optimizers.json', import.meta.url),
};

// The module's size in bytes as the browser decodes it: `make dist` writes it here (build-dist.mjs);
// 0 where it is unknown (the development tree, a bundler's copy), and the page then says bytes only.
const WASM_BYTES = 0;

let compiled = null;
const fetched = new Map();   // URL -> Promise of its JSON, or of null
const downloadListeners = new Set();

/** Calls `listener({got, total})` as the module's bytes arrive (total 0: unknown); returns an unsubscribe. */
export function onModuleDownload(listener) {
  downloadListeners.add(listener);
  return () => downloadListeners.delete(listener);
}

/** `res` with its body counted on the way through (onModuleDownload), typed for streaming compilation. */
function counted(res) {
  if (!res.body || !downloadListeners.size) return res;
  const total = WASM_BYTES || (res.headers.get('content-encoding') ? 0 : Number(res.headers.get('content-length')) || 0);
  let got = 0;
  const body = res.body.pipeThrough(new TransformStream({
    transform(chunk, out) {
      got += chunk.byteLength;
      for (const listener of downloadListeners) listener({ got, total });
      out.enqueue(chunk);
    },
  }));
  return new Response(body, { headers: { 'content-type': res.headers.get('content-type') || '' } });
}

/** The compiled module, fetched and compiled on the first call only; every worker shares it. */
export function compileModule() {
  compiled ??= (async () => {
    const res = await fetch(WASM_URL);
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${WASM_URL.href}`);
    const typed = res.headers.get('content-type')?.startsWith('application/wasm');
    const body = counted(res);
    // Streaming compiles while the bytes arrive, but only from a response typed application/wasm.
    if (typed) return WebAssembly.compileStreaming(body);
    return WebAssembly.compile(await body.arrayBuffer());
  })();
  return compiled;
}

/**
 * The language file of `lang` ({catalog, list, describe}), fetched once per page and shared by every
 * client, or null: no such language, or no file to fetch (file://, where the offline file has its own).
 */
export const languageFile = (lang) => fetchOnce(Object.hasOwn(LANGUAGE_FILES, lang) ? LANGUAGE_FILES[lang] : null);

/** True when experiment `id` has a saved run (an experiment the build knows). */
export const hasSavedRun = (id) => Object.hasOwn(SAVED_RUNS, id);

/** The saved run of experiment `id` (a result with `saved: {where, when}`), fetched once per page, or null. */
export const savedRun = (id) => fetchOnce(hasSavedRun(id) ? SAVED_RUNS[id] : null);

/** The JSON at `url`, fetched once per page, or null: no URL, nothing to fetch (file://), or a failed fetch. */
function fetchOnce(url) {
  if (!url || url.protocol === 'file:') return Promise.resolve(null);
  if (!fetched.has(url.href)) {
    const got = fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null);
    got.then((json) => { if (json === null) fetched.delete(url.href); });   // a failure is asked again next time
    fetched.set(url.href, got);
  }
  return fetched.get(url.href);
}

/** A worker client whose worker instantiates the page's one compiled module. */
export function connect() {
  return new LooplabClient(WORKER_URL, { module: compileModule, languageFile, savedRun });
}
