#!/usr/bin/env node
// `make dist`: the static site, flat and versioned, and the offline single file.
//
//   node web/tools/build-dist.mjs [outDir=dist]      (needs build/wasm/looplab.{mjs,wasm} and node_modules/uplot)
//
// dist/                          deploy as-is to any static host or CDN (no server code); README.md says how
//   looplab-widgets.js           the entry course pages load: defines <looplab-experiment>    (import 'looplab')
//   looplab-element.js           the element class, not registered                            (looplab/element)
//   looplab-api.js               the worker client: list, describe, validate, run             (looplab/api)
//   looplab-worker.js            the module worker, with the Emscripten glue (one file, no imports)
//   looplab.wasm                 the WebAssembly module
//   uplot.js                     uPlot (MIT), imported by the scripts above once they draw a line plot
//   lang/<lang>.json             a language's catalog, experiment list and describes (language-files.mjs)
//   saved-runs/<id>.json         each experiment's default run, measured here, drawn labelled before a live one (saved-runs.mjs)
//   looplab.css                  the widget's stylesheets in one file (uPlot's, panel.css, widget.css)
//   panel.css page.css …         the pages' stylesheets
//   vendor/uplot/                uPlot's stylesheet (for index.html) and licence (its code is uplot.js)
//   index.html embed.html author.html   the pages, and page.js, embed.js, author.js, their scripts
//   looplab-standalone.html      one self-contained file: opens from file:// and uploads to an LMS
//   *.br *.gz                    every file a browser loads, precompressed (brotli 11, gzip -9), for servers that send them
//
// The development tree (web/) stays unbundled ES modules with relative imports. Each dist/ script is
// one ES module made by the mini bundler below, then minified; a bundle imports what an earlier bundle provides
// (`import * as … from './looplab-api.js'`) rather than carrying a second copy, so a page that loads
// the widgets and the API shares one worker client and one compiled wasm. Every
// `new URL('<file>', import.meta.url)` and every href/src in the pages is mapped to its dist/ name;
// a reference that has none fails the build. For slow connections nothing waits on a round trip it
// need not: a bundle imports every bundle down its chain itself, and each page preloads the bundles
// its script imports (<link rel="modulepreload">; the wasm preload is in the pages' own <head>).
//
// file:// refuses ES modules and module workers (docs/toolchain.md), so the standalone file holds
// classic scripts: the same bundler, in classic mode, turns our ES modules into one script per side.
// The worker side, with the wasm inlined as base64, sits in a <script type="text/plain"> and starts as
// a Blob-URL worker.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { minifySync } from 'rolldown/experimental';
import { LANGUAGES } from '../util/i18n.js';
import { writeLanguageFiles } from './language-files.mjs';
import { writeSavedRuns } from './saved-runs.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = resolve(ROOT, process.argv[2] || 'dist');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const WASM_MJS = join(ROOT, 'build/wasm/looplab.mjs');
const WASM_BIN = join(ROOT, 'build/wasm/looplab.wasm');
const UPLOT_CSS = 'node_modules/uplot/dist/uPlot.min.css';
const abs = (rel) => join(ROOT, rel);

// What the module answers at build time, first: the language files, then (when the module is newer
// than they are) the saved runs, both copied below.
const EXPERIMENTS = await writeLanguageFiles();
await writeSavedRuns(EXPERIMENTS, { ifStale: true });

/** Files copied as they are: repository path -> dist/ name. */
const COPIED = {
  'build/wasm/looplab.wasm': 'looplab.wasm',
  ...Object.fromEntries(LANGUAGES.map((l) => [`build/lang/${l}.json`, `lang/${l}.json`])),
  ...Object.fromEntries(EXPERIMENTS.map((id) => [`build/saved-runs/${id}.json`, `saved-runs/${id}.json`])),
  [UPLOT_CSS]: 'vendor/uplot/uPlot.min.css',
  'node_modules/uplot/LICENSE': 'vendor/uplot/LICENSE',
  ...Object.fromEntries(['panel', 'page', 'embed', 'author'].map((n) => [`web/styles/${n}.css`, `${n}.css`])),
};
/** Stylesheets whose `@import url('…');` lines are inlined: one request each. */
const CSS_BUNDLES = { 'web/styles/looplab.css': 'looplab.css' };
const PAGES = { 'web/index.html': 'index.html', 'web/embed.html': 'embed.html', 'web/author.html': 'author.html' };
/**
 * The ES module bundles, in build order. `provides`: modules other bundles import from this one
 * instead of bundling them again. The worker runs in its own thread and provides nothing.
 */
const BUNDLES = [
  // uPlot on its own: the scripts that draw line plots import it once they run (plots/line.js), so a
  // page's texts and controls wait for none of it.
  // (Only its default export: its one named export, costlyLerp, is inside a comment.)
  { entry: 'node_modules/uplot/dist/uPlot.esm.js', out: 'uplot.js', exports: ['default'] },
  { entry: 'web/looplab-api.js', out: 'looplab-api.js', provides: ['web/runtime/client.js', 'web/runtime/connect.js'] },
  { entry: 'web/widgets/looplab-experiment.js', out: 'looplab-element.js' },
  { entry: 'web/looplab-widgets.js', out: 'looplab-widgets.js' },
  { entry: 'web/runtime/worker.js', out: 'looplab-worker.js', alone: true },
  { entry: 'web/app/early.js', out: 'early.js' },
  { entry: 'web/app/page.js', out: 'page.js' },
  { entry: 'web/app/embed.js', out: 'embed.js' },
  { entry: 'web/app/author.js', out: 'author.js' },
];
/** Every repository file dist/ has, by absolute path -> its dist/ name. */
const DIST_NAME = new Map([...Object.entries({ ...COPIED, ...CSS_BUNDLES, ...PAGES }), ...BUNDLES.map((b) => [b.entry, b.out])]
  .map(([from, to]) => [abs(from), to]));

function fail(message) {
  console.error(`build-dist: ${message}`);
  process.exit(1);
}

function distName(file, from) {
  const name = DIST_NAME.get(file);
  if (!name) fail(`${relative(ROOT, from)} refers to ${relative(ROOT, file)}, which has no place in dist/ (add it to build-dist.mjs)`);
  return name;
}

// `code` minified, its imports and exports kept (oxc's minifier, from Vite's rolldown): about half the
// brotli bytes a phone waits for before the texts show (issue 39); the development tree stays readable.
// Its `new URL(`…`, import.meta.url)` and `import(`…`)` go back to quoted strings: the form bundlers look for (dist-README.md).
function minified(code, name) {
  const out = minifySync(name, code, { compress: true, mangle: true });
  if (out.errors?.length) fail(`${name}: the minifier failed: ${out.errors[0].message}`);
  return `${out.code.replace(/\bnew URL\(`([^`$\\"]*)`,\s*import\.meta\.url\)/g, 'new URL("$1",import.meta.url)')
    .replace(/\bimport\(`([^`$\\"]*)`\)/g, 'import("$1")')}\n`;
}

const banner = (what) => `// looplab ${VERSION}: ${what}. Built by web/tools/build-dist.mjs from the ES modules in web/.\n`;

// ---------------------------------------------------------------- static site
/** connect.js's `const WASM_BYTES = 0;` in a bundle becomes the module's size (the page's download progress). */
function withWasmBytes(code, name) {
  const placeholder = 'const WASM_BYTES = 0;';
  if (!code.includes(placeholder)) return code;
  if (code.indexOf(placeholder) !== code.lastIndexOf(placeholder)) fail(`${name}: connect.js bundled twice`);
  return code.replace(placeholder, `const WASM_BYTES = ${statSync(WASM_BIN).size};`);
}

function copySite() {
  rmSync(OUT, { recursive: true, force: true });
  for (const [from, to] of Object.entries(COPIED)) {
    mkdirSync(dirname(join(OUT, to)), { recursive: true });
    cpSync(abs(from), join(OUT, to));
  }
  for (const [from, to] of Object.entries(CSS_BUNDLES)) writeFileSync(join(OUT, to), cssBundle(abs(from)));
  const provided = new Map();   // absolute module path -> {spec, names, chain} of the bundle that provides it
  const imported = new Map();   // bundle -> the bundles it imports, in order
  for (const b of BUNDLES) {
    const { code, exported, chain } = bundle(abs(b.entry), { esm: true, externals: b.alone ? new Map() : provided, only: b.exports });
    imported.set(b.out, chain.map((spec) => spec.replace(/^\.\//, '')));
    const sent = minified(withWasmBytes(code, b.out), b.out);
    if (b.out === 'looplab-api.js') {   // connect.js names one language file per language
      const missing = LANGUAGES.filter((l) => !sent.includes(`new URL("./lang/${l}.json",import.meta.url)`));
      if (missing.length) fail(`runtime/connect.js names no language file for ${missing.join(', ')}`);
      const unsaved = EXPERIMENTS.filter((id) => !sent.includes(`new URL("./saved-runs/${id}.json",import.meta.url)`));
      if (unsaved.length) fail(`runtime/connect.js names no saved run for ${unsaved.join(', ')} (web/tools/saved-runs.mjs makes one)`);
    }
    if (code.includes('"cmp.same.time":')) fail(`${b.out} carries a catalog: the language files hold them (issue 39)`);
    writeFileSync(join(OUT, b.out), banner(b.out) + sent);
    for (const m of [b.entry, ...(b.provides || [])]) provided.set(abs(m), { spec: `./${b.out}`, names: new Set(exported), chain });
  }
  for (const [from, to] of Object.entries(PAGES)) {
    // Every href/src is a file in dist/ (mapped), an anchor, data: or an absolute URL.
    let html = readFileSync(abs(from), 'utf8').replace(/\b(href|src)="([^"]*)"/g, (all, attr, ref) => {
      if (/^(#|data:|[a-z]+:\/\/)/.test(ref)) return all;
      return `${attr}="./${distName(resolve(dirname(abs(from)), ref), abs(from))}"`;
    });
    // The bundles a page script imports start downloading with the page, not once the script has arrived.
    html = html.replace(/^([ \t]*)<script type="module" src="\.\/([^"]+)"><\/script>/gm, (tag, indent, script) => {
      const chain = imported.get(script) ?? [];
      return chain.map((f) => `${indent}<link rel="modulepreload" href="./${f}">\n`).join('') + tag;
    });
    writeFileSync(join(OUT, to), html);
  }
  writeFileSync(join(OUT, 'README.md'), readFileSync(join(ROOT, 'web/tools/dist-README.md'), 'utf8').replaceAll('{{VERSION}}', VERSION));
}

/** The stylesheet `file` with its `@import url('…');` lines replaced by the files they name (recursively). */
function cssBundle(file) {
  return readFileSync(file, 'utf8').replace(/^@import url\(['"]?([^'")]+)['"]?\);[ \t]*$/gm,
    (_, spec) => `/* ${relative(ROOT, resolve(dirname(file), spec))} */\n${cssBundle(resolve(dirname(file), spec))}`);
}

// ---------------------------------------------------------------- mini bundler
const IMPORT_RE = /^import\s+(?:([\w$]+)\s*,\s*)?(?:([\w$]+)|\{([^}]*)\}|\*\s+as\s+([\w$]+))?\s*(?:from\s*)?['"]([^'"]+)['"];?[ \t]*$/gm;
const DYNAMIC_IMPORT_RE = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const EXPORT_DECL_RE = /^export\s+(async\s+function\*?|function\*?|class|const|let|var)\s+([\w$]+)/gm;
const EXPORT_DEFAULT_RE = /^export\s+default\s+([\w$]+)\s*;?[ \t]*$/gm;
const EXPORT_LIST_RE = /^export\s*\{([^}]*)\}\s*;?[ \t]*$/gm;
const NEW_URL_RE = /\bnew URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g;

/**
 * Bundles the ES module `entry` and what it imports into one script: each module becomes
 * `const __mN = (() => { ...; return {exports}; })();` in dependency order. Handles exactly the forms
 * our files and uPlot/Emscripten use, and fails loudly on anything else (a remaining `import`/`export`
 * line, or `import.meta` in a classic script), so a new form breaks the build instead of the page.
 *
 * Classic mode (the standalone file): `import.meta.url` becomes a placeholder URL, only ever a base.
 * ESM mode (dist/): `new URL('<file>', import.meta.url)` is pointed at the file's dist/ name; a module
 * in `externals` (absolute path -> {spec, names}) is imported from the bundle that provides it; the
 * entry's exports are the bundle's exports.
 * exportsOverride: {absPath: 'expression'} replaces a module's exports (the module factory gets its wasm).
 * only: the names the bundle exports, when not all of its entry's (a name may sit in a comment).
 * Returns {code, exported}: the script and the names the entry exports.
 */
function bundle(entry, { esm = false, externals = new Map(), exportsOverride = {}, only = null } = {}) {
  const ids = new Map();
  const out = [];
  const imports = new Map();    // external spec -> local name of its namespace import (ESM mode)
  const exportedBy = new Map();
  const visit = (file, stack = []) => {
    if (ids.has(file)) return ids.get(file);
    if (stack.includes(file)) fail(`import cycle: ${[...stack, file].map((f) => relative(ROOT, f)).join(' -> ')}`);
    let code = readFileSync(file, 'utf8');
    /** The expression for module `spec`'s namespace: a bundled module, or an external one (checking `names`). */
    const dep = (spec, names = []) => {
      const target = resolve(dirname(file), spec);
      const ext = externals.get(target);
      if (!ext) return `__m${visit(target, [...stack, file])}`;
      const missing = names.filter((n) => !ext.names.has(n));
      if (missing.length) fail(`${relative(ROOT, file)} imports ${missing.join(', ')} from ${spec}, which ${ext.spec} does not export`);
      if (!imports.has(ext.spec)) imports.set(ext.spec, `__x${imports.size}`);
      return imports.get(ext.spec);
    };
    code = code.replace(IMPORT_RE, (_, defA, defB, names, star, spec) => {
      const list = names ? names.split(',').map((n) => n.trim().split(/\s+as\s+/)[0]).filter(Boolean) : [];
      const m = dep(spec, list);
      const parts = [];
      if (defA || defB) parts.push(`const ${defA || defB} = ${m}.default;`);
      if (names) parts.push(`const { ${names.replace(/\s+as\s+/g, ': ')} } = ${m};`);
      if (star) parts.push(`const ${star} = ${m};`);
      return parts.join(' ');
    });
    // A dynamic import of another bundle's module stays one (that bundle loads when asked for); any
    // other is bundled here.
    code = code.replace(DYNAMIC_IMPORT_RE, (_, spec) => {
      const ext = externals.get(resolve(dirname(file), spec));
      return ext ? `import('${ext.spec}')` : `Promise.resolve(${dep(spec)})`;
    });
    const exported = [];
    code = code.replace(EXPORT_DECL_RE, (_, kind, name) => { exported.push([name, name]); return `${kind} ${name}`; });
    code = code.replace(EXPORT_DEFAULT_RE, (_, name) => { exported.push(['default', name]); return ''; });
    code = code.replace(EXPORT_LIST_RE, (_, list) => {
      for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
        const [local, as] = item.split(/\s+as\s+/);
        exported.push([as || local, local]);
      }
      return '';
    });
    if (esm) {
      code = code.replace(NEW_URL_RE, (_, quote, spec) => `new URL('./${distName(resolve(dirname(file), spec), file)}', import.meta.url)`);
    } else {
      const url = JSON.stringify(`file:///looplab/${relative(ROOT, file)}`);   // only ever a base for new URL()
      code = code.replace(/\bimport\.meta\.url\b/g, url);
    }
    const leftover = (esm ? /^\s*(import|export)\b[^(]/m : /^\s*(import|export)\b[^(]|\bimport\.meta\b/m).exec(code);
    if (leftover) fail(`${relative(ROOT, file)}: cannot bundle "${code.slice(leftover.index, leftover.index + 60).trim()}"`);
    const id = ids.size;
    ids.set(file, id);
    exportedBy.set(file, exported.map(([as]) => as));
    // Getters, as ES live bindings: a name matched inside a comment (uPlot has one) is never read.
    const exportsExpr = exportsOverride[file] || `{ ${exported.map(([as, local]) => `get ${as}() { return ${local}; }`).join(', ')} }`;
    out.push(`// ---- ${relative(ROOT, file)}\nconst __m${id} = (() => {\n${code}\nreturn ${exportsExpr};\n})();\n`);
    return id;
  };
  const entryId = visit(entry);
  const exported = exportedBy.get(entry).filter((name) => !only || only.includes(name));
  if (!esm) return { code: `'use strict';\n${out.join('\n')}`, exported };
  // Every bundle down the chain is imported here too (first, as `import './x.js';`, which changes no
  // evaluation order): a browser then requests them all once this bundle has arrived, instead of one
  // round trip per link of looplab-widgets.js -> looplab-element.js -> looplab-api.js.
  const direct = [...externals.values()].filter((e) => imports.has(e.spec));
  const chain = [...new Set(direct.flatMap((e) => e.chain))].filter((spec) => !imports.has(spec));
  const head = chain.map((spec) => `import '${spec}';\n`).join('')
    + [...imports].map(([spec, local]) => `import * as ${local} from '${spec}';\n`).join('');
  const named = exported.filter((n) => n !== 'default');
  const tail = (named.length ? `export const { ${named.join(', ')} } = __m${entryId};\n` : '')
    + (exported.includes('default') ? `export default __m${entryId}.default;\n` : '');
  return { code: `${head}${out.join('\n')}${tail}`, exported, chain: [...chain, ...imports.keys()] };
}

/** Text safe inside <script>…</script>: "</script" (any case) cannot close the element early. */
const scriptSafe = (js) => js.replace(/<\/(script)/gi, '<\\/$1');

// ---------------------------------------------------------------- standalone file
function standalone() {
  const wasmB64 = readFileSync(WASM_BIN).toString('base64');
  // The worker's module gets its wasm from the base64 text instead of fetching looplab.wasm.
  const factory = `{ default: (options = {}) => createLooplab({ wasmBinary: Uint8Array.from(atob(${JSON.stringify(wasmB64)}), (c) => c.charCodeAt(0)), ...options }) }`;
  const workerJs = bundle(join(ROOT, 'web/runtime/worker.js'), { exportsOverride: { [WASM_MJS]: factory } }).code;
  const mainJs = bundle(join(ROOT, 'web/tools/standalone-main.js')).code;
  const css = [UPLOT_CSS, 'web/styles/panel.css', 'web/styles/widget.css']
    .map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
  const pageCss = readFileSync(join(ROOT, 'web/tools/standalone.css'), 'utf8');
  const template = readFileSync(join(ROOT, 'web/tools/standalone.html'), 'utf8');
  const parts = {
    '/*PAGE_CSS*/': pageCss,
    '/*WIDGET_CSS*/': css,
    '/*WORKER_JS*/': workerJs,
    '/*MAIN_JS*/': mainJs,
    // every language's file (catalog, list, describes): the offline file fetches nothing
    '/*LANGUAGES*/': JSON.stringify(Object.fromEntries(LANGUAGES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, 'build', 'lang', `${l}.json`), 'utf8'))]))),
  };
  let html = template;
  for (const [marker, text] of Object.entries(parts)) {
    if (html.split(marker).length !== 2) fail(`web/tools/standalone.html must hold ${marker} exactly once`);
    html = html.replace(marker, () => scriptSafe(text));
  }
  writeFileSync(join(OUT, 'looplab-standalone.html'), html);
}

// ---------------------------------------------------------------- precompressed copies
/** What a browser loads from dist/: these get `<file>.br` and `<file>.gz` beside them. */
const COMPRESSED = /\.(js|css|html|wasm|svg|json)$/;

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip -9) next to every file a browser loads, so
 * a server sends the smaller copy to a browser that accepts it (serve.py does; nginx gzip_static and
 * brotli_static, Caddy's precompressed, most CDNs) and compresses nothing per request. Returns the files.
 */
function compress(dir = OUT) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) { files.push(...compress(file)); continue; }
    if (!COMPRESSED.test(entry.name)) continue;
    const bytes = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(bytes, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }));
    writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
    files.push(file);
  }
  return files;
}

// ---------------------------------------------------------------- sizes
function size(files) {
  const total = (suffix) => files.reduce((n, f) => n + statSync(join(OUT, f + suffix)).size, 0).toLocaleString('en-US');
  return `${total('')} B (gzip -9: ${total('.gz')} B, brotli: ${total('.br')} B)`;
}

/**
 * What a host page downloads for its widgets: looplab-widgets.js and everything it references, followed
 * through static and dynamic imports and `new URL('…', import.meta.url)` (worker, styles, wasm).
 */
function hostFiles(entry = 'looplab-widgets.js') {
  const seen = new Set();
  const REF_RE = /(?:\bfrom\s*|\bimport\(\s*|new URL\(\s*)['"]([^'"]+\.(?:m?js|css|wasm))['"]/g;
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!/\.m?js$/.test(file)) return;
    const code = readFileSync(join(OUT, file), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*)/.test(l)).join('\n');
    for (const [, spec] of code.matchAll(REF_RE)) {   // comment lines skipped: their examples are not loaded
      walk(relative(OUT, resolve(dirname(join(OUT, file)), spec)));
    }
  };
  walk(entry);
  return [...seen];
}

async function main() {
  for (const f of [WASM_MJS, WASM_BIN, ...Object.keys(COPIED).map(abs)]) {
    try { statSync(f); } catch { fail(`missing ${relative(ROOT, f)}: run \`make build\` (wasm) and \`npm ci\` first`); }
  }
  copySite();
  standalone();
  const compressed = compress();
  console.log(`dist: ${relative(process.cwd(), OUT) || '.'}/ (looplab ${VERSION})`);
  console.log(`  ${compressed.length} files with .br and .gz copies beside them`);
  console.log(`  looplab-standalone.html  ${size(['looplab-standalone.html'])}`);
  console.log(`  looplab.wasm             ${size(['looplab.wasm'])}`);
  const files = hostFiles();
  const code = files.filter((f) => f !== 'looplab.wasm');
  console.log(`  a host page with widgets downloads ${files.length} files: ${size(files)}`);
  console.log(`    of which scripts + styles + worker (${code.length} files): ${size(code)}`);
  if (process.env.VERBOSE) for (const f of files) console.log(`    ${f.padEnd(40)} ${size([f])}`);
}

await main();
