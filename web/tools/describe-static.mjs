// The static describe files (issue 39, item 1): what the module's listExperiments and describe answer,
// written once at build time, so a page shows the experiment's texts and controls before the module
// has loaded (runtime/client.js reads them; the worker answers where they are missing).
//
//   node web/tools/describe-static.mjs [outDir=build/describe]     (build-dist.mjs runs it first)
//
// <outDir>/<lang>.json   {"list": listExperiments(lang), "describe": {<id>: describe(id, lang), ...}}
// The module's own answers, from build/wasm/looplab.mjs through the worker's facade (api.js). One file
// per language rather than per experiment: connect.js names each in a `new URL('…', import.meta.url)`,
// which dist/ and bundlers (Vite) then copy, so no page ever asks for a file that is not there.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { wrap } from '../runtime/api.js';
import { LANGUAGES } from '../util/i18n.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Writes every experiment's describe, a file per language, under `outDir`; returns the number of files. */
export async function writeStaticDescribes(outDir = join(ROOT, 'build', 'describe')) {
  const modulePath = join(ROOT, 'build', 'wasm', 'looplab.mjs');
  // NOTE: Emscripten's node branch of an ES module output uses require and __dirname (wasm/test/load.mjs).
  globalThis.require ??= createRequire(modulePath);
  globalThis.__dirname ??= dirname(modulePath);
  const { default: create } = await import(pathToFileURL(modulePath).href);
  const api = wrap(await create({ wasmBinary: readFileSync(join(ROOT, 'build', 'wasm', 'looplab.wasm')) }));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const ids = api.listExperiments('en').map((x) => x.id);
  for (const lang of LANGUAGES) {
    const describe = Object.fromEntries(ids.map((id) => [id, api.describe(id, lang)]));
    writeFileSync(join(outDir, `${lang}.json`), JSON.stringify({ list: api.listExperiments(lang), describe }));
  }
  return LANGUAGES.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = await writeStaticDescribes(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`describe-static: ${n} files`);
}
