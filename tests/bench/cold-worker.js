// cold-worker.js — looplab_bench in a browser's dedicated worker, for tests/bench/cold.mjs chromium:
// `cold-worker.js?case=w1-compiled[&raw=1]` runs `looplab_bench cold w1-compiled [raw]` and posts its
// JSON line.
// A worker, as the page's engine runs in one: Chromium compiles a module synchronously (compiled
// mode's `new WebAssembly.Module`) off the main thread only.
/* global importScripts */
const name = new URL(self.location.href).searchParams.get('case');
self.Module = {
  arguments: ['cold', name, ...(new URL(self.location.href).searchParams.get('raw') ? ['raw'] : [])],
  locateFile: (file) => `/build/wasm/${file}`,
  print: (line) => self.postMessage({ line }),
  printErr: (line) => self.postMessage({ error: line }),
};
importScripts('/build/wasm/looplab_bench_worker.js');
