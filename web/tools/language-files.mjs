// The language files (issue 39, items 1 and 3): everything a page says in one language, written once at
// build time. A page fetches its reader's language (and English, for the worker's module) before the module has loaded, and shows the
// experiment's texts and controls from it (runtime/client.js); no script carries a catalog.
//
//   node web/tools/language-files.mjs [outDir=build/lang]     (build-dist.mjs runs it first)
//
// <outDir>/<lang>.json   {"catalog": core/i18n/<lang>.json,
//                         "list": listExperiments(lang), "describe": {<id>: describe(id, lang), ...}}
// The list and the describes are the core's own answers, from build/wasm/looplab-test.mjs (the shipped
// module with test hooks and describe(), which the shipped one leaves to these files) through the
// worker's facade (api.js). One file per language rather than per experiment: connect.js names each
// in a `new URL('…', import.meta.url)`, which dist/ and bundlers (Vite) then copy, so no page ever
// asks for a file that is not there.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../runtime/api.js';
import { LANGUAGES } from '../util/i18n.js';
import { loadModule } from '../../wasm/test/load.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The message catalog of `lang`, as the CLI embeds it: {key: template}. */
export const readCatalog = (lang) => JSON.parse(readFileSync(join(ROOT, 'core', 'i18n', `${lang}.json`), 'utf8'));

/** Every language's catalog: {lang: catalog}. */
export const readCatalogs = () => Object.fromEntries(LANGUAGES.map((l) => [l, readCatalog(l)]));

/**
 * What a page needs of a language's catalog: all of it but the texts its describes already hold
 * (the core renders param.*, quoted.*, tf.* and exp.<id>.intro, .try and .mechanism into them, and a
 * page reads them there): 4 KB brotli less of the 32 KB a page waits for before its texts show
 * (issue 39). The experiments' titles and questions stay: the picker and the author page say them.
 */
const DESCRIBED = /^(param|quoted|tf)\.|^exp\.[^.]+\.(intro|try|mechanism)$/;
export const pageCatalog = (catalog) => Object.fromEntries(Object.entries(catalog).filter(([key]) => !DESCRIBED.test(key)));

/** Writes a language file per language under `outDir`; returns the experiments' ids. */
export async function writeLanguageFiles(outDir = join(ROOT, 'build', 'lang')) {
  const catalogs = readCatalogs();
  const api = wrap(await loadModule('looplab-test', { catalogs: [] }), catalogs);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const ids = api.listExperiments('en').map((x) => x.id);
  for (const lang of LANGUAGES) {
    const describe = Object.fromEntries(ids.map((id) => [id, api.describe(id, lang)]));
    writeFileSync(join(outDir, `${lang}.json`), JSON.stringify({ catalog: pageCatalog(catalogs[lang]), list: api.listExperiments(lang), describe }));
  }
  return ids;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeLanguageFiles(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`language-files: ${LANGUAGES.length} files`);
}
