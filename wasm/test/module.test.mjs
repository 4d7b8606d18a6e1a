// The embind module's JS API under Node: build/wasm/looplab.mjs, exactly as the worker uses it.
// Run by `npm test` (after `make build`).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadModule } from './load.mjs';

let m;
before(async () => {
  m = await loadModule();
});

test('listExperiments returns parseable JSON naming standardization', () => {
  const list = JSON.parse(m.listExperiments('en'));
  assert.ok(Array.isArray(list) && list.length > 0);
  assert.ok(list.some((e) => e.id === 'standardization'));
});

test('environment reports a wasm build with SIMD', () => {
  const env = JSON.parse(m.environment());
  assert.equal(env.build, 'wasm');
  assert.equal(env.simd, true);
});

test('warmUp compiles and runs a tiny model in every mode once (compiled mode instantiates a module)', () => {
  assert.equal(m.warmUp(), true);
  const used = m.heapStats().used_bytes;
  assert.equal(m.warmUp(), true);
  assert.equal(m.heapStats().used_bytes, used, 'a second warm-up did work again');
});

test('bad input comes back as a returned Error naming the parameter', () => {
  const err = m.validateConfig('{"experiment":"standardization","lr_raw":-1}');
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  assert.match(err.message, /lr_raw/);
  assert.equal(err.name, 'ConfigError');

  assert.ok(m.createRun('{"experiment":"no-such-experiment"}') instanceof Error);
  assert.equal(m.describe, undefined, 'the shipped module has no describe (the pages read the language files)');
  assert.ok(m.createRun('{"experiment":"standardization","lr_raw":-1}') instanceof Error);
  assert.ok(m.validateConfig('not json') instanceof Error);

  const resolved = JSON.parse(m.validateConfig('{"experiment":"standardization"}'));
  assert.equal(resolved.experiment, 'standardization');
});

test('20,000 error round trips leak neither heap nor emval handles', () => {
  const bad = '{"experiment":"standardization","lr_raw":-1}';
  const roundTrip = () => {
    const err = m.validateConfig(bad);
    if (!(err instanceof Error)) throw new Error(`expected an Error, got ${err}`);
  };
  for (let i = 0; i < 1000; i++) roundTrip();  // warm up: let the allocator settle
  const heapBefore = m.HEAP8.length;
  const handlesBefore = m.count_emval_handles();
  for (let i = 0; i < 20000; i++) roundTrip();
  assert.equal(m.HEAP8.length, heapBefore, 'wasm memory grew');
  assert.equal(m.count_emval_handles(), handlesBefore, 'emval handles leaked');
  // The module still works after the errors.
  assert.ok(JSON.parse(m.listExperiments('en')).length > 0);
});

test('a default standardization run completes in advance(50) chunks', { timeout: 300_000 }, () => {
  const run = m.createRun('{"experiment":"standardization"}');
  assert.ok(!(run instanceof Error), `createRun failed: ${run?.message}`);
  try {
    assert.equal(typeof run.done(), 'boolean');
    let chunks = 0;
    for (;;) {
      const done = run.advance(50);
      assert.ok(!(done instanceof Error), `advance failed: ${done?.message}`);
      const progress = run.progress();
      assert.ok(!(progress instanceof Error), `progress failed: ${progress?.message}`);
      JSON.parse(progress);
      chunks++;
      if (done) break;
      assert.ok(chunks < 10_000, 'run did not finish');
    }
    assert.equal(run.done(), true);
    const text = run.result();
    assert.ok(!(text instanceof Error), `result failed: ${text?.message}`);
    const result = JSON.parse(text);
    assert.ok(result.summary && typeof result.summary === 'object', 'result has no summary');
  } finally {
    run.delete();
  }
});

// The module embeds no catalog (docs/size.md): the facade supplies English when it wraps the module
// and another language only when a call first asks for it.
test('catalogs: none built in; the facade supplies the English it is given at once and another language on demand', async () => {
  const { wrap } = await import('../../web/runtime/api.js');
  const bare = await loadModule('looplab', { catalogs: [] });
  assert.equal(bare.catalogNeeded('en'), 'en');
  assert.equal(bare.catalogNeeded('zh_CN.UTF-8'), 'zh-CN');
  const err = bare.listExperiments('en');
  assert.ok(err instanceof Error && /no catalog for en/.test(err.message), String(err));
  assert.ok(bare.provideCatalog('en', '{"not": ["flat"]}') instanceof Error);
  assert.ok(bare.provideCatalog('fr', '{}') instanceof Error);

  const { readCatalogs } = await import('../../web/tools/language-files.mjs');
  const catalogs = readCatalogs();
  assert.throws(() => wrap(bare, {}), { message: 'the catalog of en was not given to the module' });
  const api = wrap(bare, { en: catalogs.en });
  assert.equal(bare.catalogNeeded('en'), '');
  assert.equal(bare.catalogNeeded('id'), 'id');
  assert.throws(() => api.listExperiments('zh-CN'), { message: 'the catalog of zh-CN was not given to the module' });
  api.addCatalog('zh-CN', catalogs['zh-CN']);
  api.addCatalog('id', catalogs.id);
  assert.throws(() => api.validateConfig({ experiment: 'standardization', lr_raw: -1 }),
    { message: 'lr_raw: must be a number in (0, 10], got -1' });
  assert.equal(bare.catalogNeeded('zh-CN'), 'zh-CN');
  assert.equal(api.listExperiments('zh-CN').find((x) => x.id === 'standardization').title, '标准化');
  assert.equal(bare.catalogNeeded('zh-CN'), '');
  assert.equal(bare.catalogNeeded('id'), 'id');   // never asked for: never parsed
});
