// Shared by the wasm tests: loads build/wasm/<name>.mjs under Node, and runs a config to its end.
//
//   const m = await loadModule();                  // or loadModule('looplab-test') for the test hooks
//   const bare = await loadModule('looplab', { catalogs: [] });   // no catalog supplied yet
//
// The module embeds no message catalog (core/include/looplab/base/i18n.hpp): the worker's facade
// (web/runtime/api.js) supplies English and the language asked for. The tests call the module
// directly, so this gives it every catalog of core/i18n/ (the files the page's language files hold).
//   const result = runToEnd(m, { experiment: 'standardization', max_iterations: 200 });
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// NOTE: emscripten 3.1.6's EXPORT_ES6 output uses `require` and `__dirname` on its node branch
// and cannot read its own .wasm from a file:// URL there: provide both globals and pass the bytes.
export async function loadModule(name = 'looplab', { catalogs = ['en', 'zh-CN', 'id'] } = {}) {
  const modulePath = join(ROOT, 'build', 'wasm', `${name}.mjs`);
  const wasmPath = join(ROOT, 'build', 'wasm', `${name}.wasm`);
  if (!existsSync(modulePath) || !existsSync(wasmPath)) {
    throw new Error(`${modulePath} or ${name}.wasm is missing: run \`make build\` first`);
  }
  globalThis.require ??= createRequire(modulePath);
  globalThis.__dirname ??= dirname(modulePath);
  const { default: create } = await import(pathToFileURL(modulePath).href);
  const m = await create({ wasmBinary: readFileSync(wasmPath) });
  for (const lang of catalogs) {
    const ok = m.provideCatalog(lang, readFileSync(join(ROOT, 'core', 'i18n', `${lang}.json`), 'utf8'));
    if (ok instanceof Error) throw ok;
  }
  return m;
}

/** Runs `config` in advance(50) chunks to its end; returns the parsed result. Throws the module's Error. */
export function runToEnd(m, config) {
  const run = m.createRun(typeof config === 'string' ? config : JSON.stringify(config));
  if (run instanceof Error) throw run;
  try {
    for (;;) {
      const done = run.advance(50);
      if (done instanceof Error) throw done;
      const p = run.progress();
      if (p instanceof Error) throw p;
      if (done) return JSON.parse(run.result());
    }
  } finally {
    run.delete();
  }
}
