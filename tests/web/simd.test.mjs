// Browser tests of the "SIMD vs scalar vs JavaScript" panel (dist/, built by scripts/build), in the
// engine helpers.mjs picks. The tiny model only; no timing is asserted, only that every figure
// is a finite positive number and that the page says what it measured.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  chromiumOnly,
  dist,
  expectNoSidewaysScroll,
  pageSession,
  runPanel,
  screenshots,
  startServer,
} from './helpers.mjs';

const IMPLEMENTATIONS = ['simd', 'scalar', 'js'];
const NUMBER_KEYS = ['median_ms', 'min_ms', 'max_ms', 'gflops', 'gb_per_s', 'simd_speedup'];

// The panel's scalar build, fetched only when it runs, must be in dist/ too; every page records the
// panel's result events.
const session = pageSession({
  extraFiles: ['kvlab-scalar.js', 'kvlab-scalar.wasm'],
  preparePage: (page) =>
    page.addInitScript(() => {
      window.__simdEvents = [];
      document.addEventListener('kvlab:simd-result', (event) => window.__simdEvents.push(event.detail));
    }),
});
const { openPage } = session;
// Why the Firefox pass leaves a test out.
const SAME_LOGIC = 'the panel’s fallback is the same JavaScript in every engine; the Firefox pass measures with SIMD';

async function waitForComparison(page, timeout = 60000) {
  await page.waitForFunction(
    () => window.kvlabSimdResult !== undefined || !document.getElementById('simd-error').hidden,
    null,
    { timeout, polling: 100 }
  );
  const error = await page.evaluate(() =>
    document.getElementById('simd-error').hidden ? null : document.getElementById('simd-error').textContent
  );
  assert.equal(error, null, `the panel reported an error: ${error}`);
  return page.evaluate(() => window.kvlabSimdResult);
}

// The table as {impl: {available, values: {key: number}}}.
function readSimdTable(page) {
  return page.$$eval('#simd-table tbody tr', (rows) =>
    rows.map((row) => ({
      impl: row.dataset.impl,
      available: row.dataset.available === 'true',
      text: row.textContent,
      values: Object.fromEntries(
        Array.from(row.querySelectorAll('td[data-key]')).map((td) => [
          td.dataset.key,
          td.dataset.value === '' ? NaN : Number(td.dataset.value),
        ])
      ),
    }))
  );
}

function assertMeasured(row) {
  for (const key of NUMBER_KEYS) {
    assert.ok(Number.isFinite(row.values[key]) && row.values[key] > 0, `${row.impl} ${key} = ${row.values[key]}`);
  }
  assert.ok(
    row.values.min_ms <= row.values.median_ms && row.values.median_ms <= row.values.max_ms,
    `${row.impl}: min <= median <= max`
  );
}

const ratioOf = (text) => Number(/([\d.,]+)×/.exec(text)[1].replace(/,/g, ''));

describe('the SIMD vs scalar vs JavaScript panel', { timeout: 120000 }, () => {
  test('measures the three side by side, loading the scalar build only when asked', async () => {
    const servedBefore = session.served.length;
    const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    assert.equal(await page.isVisible('#simd'), true);
    assert.equal(await page.isVisible('#simd-no-simd'), false);
    assert.equal(await page.isEnabled('#simd-cancel'), false);
    assert.equal(await page.isEnabled('#simd-download'), false);
    // Lazy: the scalar build is not fetched with the page, nor by the lab's worker (the server's log,
    // since Firefox does not report a worker's requests to the page).
    const scalarFetches = () =>
      session.served
        .slice(servedBefore)
        .filter((url) => /kvlab-scalar/.test(url))
        .map((url) => url.split('/').pop());
    assert.deepEqual(scalarFetches(), []);
    assert.equal(page.workers().length, 1);

    const labWorker = page.workers()[0];
    const { endedWithin } = await runPanel(page, 'simd');
    assert.equal(await page.getAttribute('#simd', 'data-state'), 'running');
    assert.equal(await page.isEnabled('#run'), false, 'the lab waits while the panel runs');
    const result = await waitForComparison(page);

    // Three rows, in order, with finite positive numbers; SIMD is the baseline of the last column.
    const rows = await readSimdTable(page);
    assert.deepEqual(
      rows.map((r) => r.impl),
      IMPLEMENTATIONS
    );
    for (const row of rows) {
      assert.equal(row.available, true, row.impl);
      assertMeasured(row);
    }
    assert.equal(rows[0].values.simd_speedup, 1);
    assert.match(await page.textContent('#simd-table caption'), /1 row at context 64/);
    assert.match(await page.textContent('#simd-model'), /tiny model/);

    // The ratios, shown and kept: SIMD over scalar and over JavaScript are the medians' ratios.
    const { ratios } = result;
    for (const key of ['simd_vs_scalar', 'simd_vs_js', 'scalar_vs_js'])
      assert.ok(Number.isFinite(ratios[key]) && ratios[key] > 0, key);
    assert.ok(Math.abs(ratios.simd_vs_scalar - result.rows.scalar.median_ms / result.rows.simd.median_ms) < 1e-9);
    assert.ok(Math.abs(ratios.simd_vs_js - result.rows.js.median_ms / result.rows.simd.median_ms) < 1e-9);
    const cardScalar = await page.textContent('#simd-ratio-scalar');
    const cardJs = await page.textContent('#simd-ratio-js');
    assert.match(cardScalar, /SIMD over scalar\s*[\d.,]+×/);
    assert.match(cardJs, /SIMD over JavaScript\s*[\d.,]+×/);
    assert.ok(Math.abs(ratioOf(cardScalar) - ratios.simd_vs_scalar) / ratios.simd_vs_scalar < 0.01);
    assert.ok(Math.abs(ratioOf(cardJs) - ratios.simd_vs_js) / ratios.simd_vs_js < 0.01);
    assert.ok(Number.isFinite(result.read_gb_per_s) && result.read_gb_per_s > 0);
    assert.match(await page.textContent('#simd-bandwidth'), /[\d.]+ GB\/s/);
    assert.match(await page.textContent('#simd-finding'), /memory bandwidth/);
    // The SIMD build against its own limits: finite positive fractions, shown as percentages.
    for (const [key, id] of [
      ['decode_fraction_of_bandwidth', '#simd-bandwidth-share'],
      ['rows16_fraction_of_peak', '#simd-peak-share'],
    ]) {
      assert.ok(Number.isFinite(ratios[key]) && ratios[key] > 0, `${key} = ${ratios[key]}`);
      assert.equal(Number(await page.getAttribute(id, 'data-value')), ratios[key]);
      assert.match(await page.textContent(id), /\d+%/);
    }

    // 16 rows for the two wasm builds.
    assert.deepEqual(await page.$$eval('#simd-rows-table tbody tr', (trs) => trs.map((tr) => tr.dataset.impl)), [
      'simd',
      'scalar',
    ]);
    const gains = await page.$$eval('#simd-rows-table td[data-key="tokens_per_s_ratio"]', (tds) =>
      tds.map((td) => Number(td.dataset.value))
    );
    for (const gain of gains) assert.ok(Number.isFinite(gain) && gain > 0);

    // The result: one event, the same object on window, the wasm figures from bench().
    const events = await page.evaluate(() => window.__simdEvents.length);
    assert.equal(events, 1);
    assert.equal(result.context, 64);
    assert.equal(result.model.preset, 'tiny');
    assert.equal(result.simd.instruction_set, 'wasm simd128');
    assert.equal(result.scalar.instruction_set, 'scalar');
    assert.equal(result.simd_at_context.context, 64);
    assert.equal(result.options.simd, true);
    assert.ok(result.js.gflops > 0 && result.js.samples === 5);
    assert.equal(await page.getAttribute('#simd', 'data-state'), 'done');
    assert.equal(await page.evaluate(() => document.getElementById('simd-progress').value), 100);
    assert.match(await page.textContent('#simd-phase'), /^Done in/);

    // Now, and only now, the scalar build came over the network; the panel's worker has ended.
    assert.deepEqual(scalarFetches().sort(), ['kvlab-scalar.js', 'kvlab-scalar.wasm']);
    assert.equal(await endedWithin(15000), true, 'the panel worker should end with its run');
    assert.deepEqual(page.workers(), [labWorker]);
    assert.equal(await page.isEnabled('#run'), true);

    // The JSON download holds the same figures.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#simd-download')]);
    const saved = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    assert.equal(saved.ratios.simd_vs_scalar, ratios.simd_vs_scalar);

    fs.mkdirSync(screenshots, { recursive: true });
    await page.locator('#simd').screenshot({ path: path.join(screenshots, 'simd.png') });

    // Phone width: the page does not scroll sideways (the table scrolls in its own box).
    await expectNoSidewaysScroll(page);
  });

  test(
    'Cancel stops the panel’s worker and leaves the lab’s alone',
    chromiumOnly('the same cancel (the worker terminated) as the lab’s, which the Firefox pass checks'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html`); // the default (small) model: a run of several seconds
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      const [labWorker] = page.workers();
      const { endedWithin } = await runPanel(page, 'simd');
      await page.waitForFunction(() => document.getElementById('simd-progress').value > 0, null, { timeout: 30000 });
      assert.equal(await page.isEnabled('#simd-cancel'), true);
      await page.click('#simd-cancel');
      assert.equal(await page.getAttribute('#simd', 'data-state'), 'cancelled');
      assert.match(await page.textContent('#simd-phase'), /Cancelled/);
      assert.equal(await page.evaluate(() => document.getElementById('simd-progress').value), 0);
      assert.equal(await endedWithin(15000), true, 'the panel worker was not terminated');
      assert.deepEqual(page.workers(), [labWorker], 'the lab’s worker is untouched');
      assert.equal(await page.isEnabled('#simd-run'), true);
      assert.equal(await page.isEnabled('#simd-cancel'), false);
      assert.equal(await page.isEnabled('#run'), true);
      await page.waitForTimeout(300);
      assert.equal(await page.evaluate(() => window.kvlabSimdResult), undefined);

      // It runs again afterwards (tiny model, chosen in the settings).
      await page.selectOption('#preset', 'tiny');
      await page.click('#simd-run');
      const result = await waitForComparison(page);
      assert.equal(result.model.preset, 'tiny');
      assert.equal((await readSimdTable(page)).length, 3);
    }
  );

  test(
    'without WebAssembly SIMD it says so and measures scalar and JavaScript only',
    chromiumOnly(SAME_LOGIC),
    async () => {
      // The page's SIMD probe fails, as in a browser without SIMD.
      const { page } = await openPage(`${session.server.url}index.html#preset=tiny`, {
        init: () => {
          WebAssembly.validate = () => false;
        },
      });
      assert.match(await page.textContent('#env-list'), /WebAssembly SIMD\s*off/);
      assert.equal(await page.isVisible('#simd-no-simd'), true);
      await page.click('#simd-run');
      const result = await waitForComparison(page);
      assert.equal(result.options.simd, false);
      assert.equal(result.simd, null);
      const rows = await readSimdTable(page);
      assert.deepEqual(
        rows.map((r) => [r.impl, r.available]),
        [
          ['simd', false],
          ['scalar', true],
          ['js', true],
        ]
      );
      assert.match(rows[0].text, /Not measured: WebAssembly SIMD is not supported by this browser/);
      for (const key of ['median_ms', 'min_ms', 'max_ms', 'gflops', 'gb_per_s']) {
        for (const row of rows.slice(1))
          assert.ok(Number.isFinite(row.values[key]) && row.values[key] > 0, `${row.impl} ${key}`);
      }
      assert.match(await page.textContent('#simd-ratio-scalar'), /–/);
      assert.match(await page.textContent('#simd-ratio-scalar-js'), /Scalar over JavaScript\s*[\d.,]+×/);
      assert.ok(result.ratios.scalar_vs_js > 0);
      assert.equal(result.read_gb_per_s_from, 'scalar');
    }
  );

  test('a SIMD module that does not load leaves scalar and JavaScript measured', chromiumOnly(SAME_LOGIC), async () => {
    // A copy of dist/ without kvlab.wasm: the lab cannot load, the panel carries on without SIMD.
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-nosimd-'));
    // (Its files only: the model files in dist/models are not needed.)
    for (const file of fs.readdirSync(dist))
      if (file !== 'kvlab.wasm' && fs.statSync(path.join(dist, file)).isFile())
        fs.copyFileSync(path.join(dist, file), path.join(broken, file));
    const brokenServer = await startServer(broken);
    try {
      const page = await session.browser.context.newPage(); // not watched: the missing file logs a 404
      await page.goto(`${brokenServer.url}index.html#preset=tiny`);
      await page.waitForSelector('#error:not([hidden])', { timeout: 30000 });
      await page.click('#simd-run');
      const result = await waitForComparison(page);
      assert.equal(result.simd, null);
      assert.ok(result.simd_error && result.simd_error.message, 'the SIMD load error is kept');
      const rows = await readSimdTable(page);
      assert.deepEqual(
        rows.map((r) => [r.impl, r.available]),
        [
          ['simd', false],
          ['scalar', true],
          ['js', true],
        ]
      );
      assert.match(rows[0].text, /could not be loaded/);
      await page.close();
    } finally {
      await brokenServer.close();
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });

  test('works in the standalone file from file://, with the scalar build inlined', async () => {
    const url = `${pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href}#preset=tiny`;
    const { page, log } = await openPage(url);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    await page.click('#simd-run');
    const result = await waitForComparison(page);
    assert.equal(result.page.standalone, true);
    const rows = await readSimdTable(page);
    assert.deepEqual(
      rows.map((r) => r.impl),
      IMPLEMENTATIONS
    );
    for (const row of rows) assertMeasured(row);
    const foreign = log.requests.filter(
      (u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')
    );
    assert.deepEqual(foreign, []);
  });
});

describe('every page of the panel tests', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages({ chromium: 4, firefox: 2 });
  });
});
