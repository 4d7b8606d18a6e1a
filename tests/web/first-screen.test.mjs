// The first screen (issue 39, item 1): on a 1366×768 laptop and a 390×844 phone, every experiment's
// page shows its Run button and its first plot's chart whole without scrolling (its legend and tools
// may follow below); the explanations are folded below the question and its one-line lede, one click away.
//
//   node --test tests/web/first-screen.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, useBrowser, waitForStatus } from './harness.mjs';

const EXPERIMENTS = ['standardization', 'optimizers', 'execution-modes', 'unroll', 'retracing', 'call-granularity',
  'overhead', 'matrix', 'pipelines'];
const SCREENS = [['laptop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]];

for (const [name, viewport] of SCREENS) {
  const browser = useBrowser({ viewport });
  for (const id of EXPERIMENTS) {
    test(`${id} on a ${viewport.width}×${viewport.height} ${name}: Run and the first plot on the first screen`, async () => {
      const { page, problems } = await browser.open(`/web/?experiment=${id}`);
      await waitForStatus(page, 'ready');
      const at = await page.evaluate(() => {
        const box = (node) => {
          const r = node.getBoundingClientRect();
          return { top: Math.round(r.top), bottom: Math.round(r.bottom), right: Math.round(r.right) };
        };
        // The first plot's chart: uPlot's drawing area, or the bar chart's, heatmap's or contours' picture.
        const body = document.querySelector('.plot-box .plot-body');
        const chart = body.querySelector('.u-wrap, svg, canvas') ?? body;
        return { run: box(document.querySelector('#run')), plot: box(chart), lede: box(document.querySelector('#lede')), explained: document.querySelector('.explain-box').open,
          width: innerWidth, height: innerHeight };
      });
      const where = JSON.stringify(at);
      assert.ok(at.run.top >= 0 && at.run.bottom <= at.height, `Run is off the first screen: ${where}`);
      assert.ok(at.plot.top >= 0 && at.plot.bottom <= at.height && at.plot.right <= at.width,
        `the first plot is not whole on the first screen: ${where}`);
      assert.ok(at.lede.bottom > at.lede.top, `no lede under the question: ${where}`);
      assert.equal(at.explained, false, 'the explanations are not folded');
      await assertClean(page, problems);
      await page.close();
    });
  }
}
