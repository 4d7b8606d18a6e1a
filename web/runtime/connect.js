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
// What list() and describe() answer, written at build time (web/tools/describe-static.mjs): the texts
// and controls show before the module has loaded. One literal URL per language of util/i18n.js.
const DESCRIBES = {
  en: new URL('../../build/describe/en.json', import.meta.url),
  'zh-CN': new URL('../../build/describe/zh-CN.json', import.meta.url),
  id: new URL('../../build/describe/id.json', import.meta.url),
};

let compiled = null;

/** The compiled module, fetched and compiled on the first call only; every worker shares it. */
export function compileModule() {
  compiled ??= (async () => {
    const res = await fetch(WASM_URL);
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${WASM_URL.href}`);
    // Streaming compiles while the bytes arrive, but only from a response typed application/wasm.
    if (res.headers.get('content-type')?.startsWith('application/wasm')) return WebAssembly.compileStreaming(res);
    return WebAssembly.compile(await res.arrayBuffer());
  })();
  return compiled;
}

/** A worker client whose worker instantiates the page's one compiled module. */
export function connect() {
  return new LooplabClient(WORKER_URL, { module: compileModule, describes: DESCRIBES });
}
