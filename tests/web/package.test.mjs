// The npm package (issue 13): `npm pack`, installed into a fresh project, bundled by Vite, served
// and run in Chromium: what a course site built with a bundler gets.
//
//   node --test tests/web/package.test.mjs     (needs `make dist` and `npm ci`, which brings Vite)
//
// Offline by design (CI may download nothing at test time): the tarball has no dependencies, so
// `npm install --offline` takes it from disk, and Vite is the repository's own (devDependencies).
// The project is written to test-results/vite-consumer/, which the test server serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS, ROOT, RUN_TIMEOUT_MS, assertClean, useBrowser } from './harness.mjs';

const browser = useBrowser();
const PROJECT = join(RESULTS, 'vite-consumer');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;

const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A course site as an author would start one: a page with the element, a script that imports the package. */
function writeProject() {
  rmSync(PROJECT, { recursive: true, force: true });
  mkdirSync(PROJECT, { recursive: true });
  writeFileSync(join(PROJECT, 'package.json'), '{ "name": "course-site", "private": true, "type": "module" }\n');
  writeFileSync(join(PROJECT, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lesson 3</title><link rel="icon" href="data:,">
<script type="module" src="./main.js"></script></head>
<body><h1>Scaling the inputs</h1>
<looplab-experiment experiment="standardization" controls="lr_scaled"></looplab-experiment></body></html>\n`);
  writeFileSync(join(PROJECT, 'main.js'), `import 'looplab';
import { connect } from 'looplab/api';
import { LooplabExperiment } from 'looplab/element';
// The three entry points share one copy of the runtime: connect() here and the widget share one compile.
window.__consumer = { connect, registered: customElements.get('looplab-experiment').prototype instanceof LooplabExperiment };
`);
}

test('npm pack -> npm install (offline) -> vite build -> the page runs standardization', { timeout: 180_000 }, async () => {
  const t0 = performance.now();
  writeProject();
  const [pack] = JSON.parse(sh('npm', ['pack', '--json', '--silent', '--pack-destination', PROJECT], ROOT));
  const files = pack.files.map((f) => f.path).sort();
  console.log(`  tarball ${pack.filename}: ${kb(pack.size)} (${kb(pack.unpackedSize)} unpacked), ${files.length} files: ${files.join(' ')}`);
  for (const f of ['dist/looplab-widgets.js', 'dist/looplab-element.js', 'dist/looplab-api.js', 'dist/looplab-worker.js',
    'dist/looplab.wasm', 'dist/looplab.css', 'types/index.d.ts', 'types/element.d.ts', 'types/api.d.ts']) {
    assert.ok(files.includes(f), `the tarball holds ${f}`);
  }
  assert.ok(!files.some((f) => /^(web|core|wasm|build|tests)\//.test(f)), 'no sources or build trees in the tarball');
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', `./${pack.filename}`], PROJECT);
  // The declarations as installed parse as TypeScript (a syntax check: no tsc here; rolldown comes with Vite).
  const { parseAst } = await import('rolldown/parseAst');
  for (const f of ['index', 'element', 'api']) {
    const text = readFileSync(join(PROJECT, 'node_modules', 'looplab', 'types', `${f}.d.ts`), 'utf8');
    assert.ok(parseAst(text, { lang: 'dts' }).body.length > 0, `types/${f}.d.ts`);
  }
  sh(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--base', './', '--logLevel', 'error'], PROJECT);
  console.log(`  pack + install + vite build: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const downloads = new Map();   // path -> bytes
  page.on('response', async (r) => {
    if (!r.url().includes('/vite-consumer/dist/')) return;
    downloads.set(new URL(r.url()).pathname.replace(/.*\/dist\//, ''), (await r.body().catch(() => Buffer.alloc(0))).length);
  });
  await page.goto(page.url().replace(/\/tests\/web\/fixtures\/blank\.html$/, '/test-results/vite-consumer/dist/index.html'));
  const widget = 'looplab-experiment';
  await page.waitForFunction((s) => /^(ready|error)/.test(document.querySelector(s)?.status ?? ''), widget, { timeout: 60_000 });
  assert.equal(await page.evaluate((s) => document.querySelector(s).status, widget), 'ready');
  assert.equal(await page.evaluate(() => window.__consumer.registered), true, "import 'looplab' registered the class looplab/element exports");
  const button = await page.evaluate((s) => getComputedStyle(document.querySelector(s).shadowRoot.querySelector('button.primary')).backgroundColor, widget);
  assert.equal(button, 'rgb(0, 114, 178)', 'the stylesheet was bundled and applies');
  await page.evaluate((s) => document.querySelector(s).run(), widget);
  await page.waitForFunction((s) => /^(done|error)/.test(document.querySelector(s).status), widget, { timeout: RUN_TIMEOUT_MS });
  const result = await page.evaluate((s) => document.querySelector(s).result, widget);
  assert.equal(result?.experiment, 'standardization', await page.evaluate((s) => document.querySelector(s).status, widget));
  assert.ok(Math.abs(result.runs.find((r) => r.variant === 'scaled').iterations_to_tolerance - 39) <= 2);

  // looplab/api from the same bundle: list and validate, and no second download of the wasm.
  const api = await page.evaluate(async () => {
    const client = window.__consumer.connect();
    const list = await client.list();
    const error = await client.validate({ experiment: 'standardization', lr_raw: -1 }).then(() => '', (e) => e.message);
    client.terminate();
    return { ids: list.map((x) => x.id), error };
  });
  assert.ok(api.ids.includes('standardization') && api.ids.length >= 8, api.ids.join(' '));
  assert.match(api.error, /^lr_raw: must be/);
  const wasm = [...downloads.keys()].filter((p) => p.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `one wasm download: ${[...downloads.keys()]}`);
  const total = [...downloads.values()].reduce((a, b) => a + b, 0);
  console.log(`  the bundled page downloads ${downloads.size} files, ${kb(total)} uncompressed: `
    + [...downloads].map(([p, n]) => `${p} ${kb(n)}`).join(', '));
  await assertClean(page, problems);
});
