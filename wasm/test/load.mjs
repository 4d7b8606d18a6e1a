// Shared by the wasm tests: loads build/wasm/<name>.mjs under Node, and runs a config to its end.
//
//   const m = await loadModule();                  // or loadModule('looplab-test') for the test hooks
//   const result = runToEnd(m, { experiment: 'standardization', max_iterations: 200 });
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// NOTE: emscripten 3.1.6's EXPORT_ES6 output uses `require` and `__dirname` on its node branch
// and cannot read its own .wasm from a file:// URL there: provide both globals and pass the bytes.
export async function loadModule(name = 'looplab') {
  const modulePath = join(ROOT, 'build', 'wasm', `${name}.mjs`);
  const wasmPath = join(ROOT, 'build', 'wasm', `${name}.wasm`);
  if (!existsSync(modulePath) || !existsSync(wasmPath)) {
    throw new Error(`${modulePath} or ${name}.wasm is missing: run \`make build\` first`);
  }
  globalThis.require ??= createRequire(modulePath);
  globalThis.__dirname ??= dirname(modulePath);
  const { default: create } = await import(pathToFileURL(modulePath).href);
  return create({ wasmBinary: readFileSync(wasmPath) });
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
