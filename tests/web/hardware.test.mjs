// Browser tests of the hardware switch (issue 17): "this device (measured)" stays the default; a GPU preset
// models its step table (C++ roofline, in a job worker), and the page shows the four-policy table, the rows
// gain at 1, 16, 64 and 256 rows, the memory comparison at the GPU's real KV budget in tokens, a plot and the
// published checks, each labelled as modeled. No timing is asserted.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { SMALL_LAB, pageSession, root, shot } from './helpers.mjs';

const session = pageSession();
const { openPage } = session;

function readTable(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row) => ({
    policy: row.dataset.policy,
    rows: row.dataset.rows,
    values: Object.fromEntries(Array.from(row.querySelectorAll('td[data-key]'))
      .map((td) => [td.dataset.key, td.dataset.value === '' ? NaN : Number(td.dataset.value)])),
  })));
}

async function waitForHardware(page, timeout = 90000) {
  await page.waitForFunction(() => window.kvlabHardwareResult !== undefined || !document.getElementById('gpu-error').hidden,
    null, { timeout, polling: 100 });
  const error = await page.evaluate(() => (document.getElementById('gpu-error').hidden ? null : document.getElementById('gpu-error').textContent));
  assert.equal(error, null, `the hardware view reported an error: ${error}`);
  return page.evaluate(() => window.kvlabHardwareResult);
}

describe('the hardware switch', { timeout: 180000 }, () => {
  test('offers the C++ presets, with this device (measured) as the default', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
    assert.equal(await page.$eval('#gpu-hardware', (s) => s.value), 'measured');
    assert.equal(await page.getAttribute('#hardware', 'data-hardware'), 'measured');
    assert.equal(await page.$eval('#gpu-results', (el) => el.hidden), true);
    const gpus = await page.$$eval('#gpu-hardware option', (options) => options.map((o) => o.value).filter((v) => v !== 'measured'));
    const models = await page.$$eval('#gpu-model option', (options) => options.map((o) => o.value));
    // The module lists its presets in its error for an unknown name.
    const cli = path.join(root, 'build/native/src/cli/kvlab');
    const known = (flag) => {
      const run = spawnSync(cli, ['roofline', '--gpu', flag === '--gpu' ? 'none' : 'h100-sxm', '--model', flag === '--model' ? 'none' : 'llama-3.1-8b'], { encoding: 'utf8' });
      return run.stderr.match(/must be one of (.*) \(got/)[1].split(', ').sort();
    };
    assert.deepEqual([...gpus].sort(), known('--gpu'));
    assert.deepEqual([...models].sort(), known('--model'));
  });

  test('an H100 preset renders the modeled tables and plot, with the KV budget in real tokens', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
    await page.selectOption('#gpu-hardware', 'h100-sxm');
    const r = await waitForHardware(page);
    assert.equal(await page.getAttribute('#hardware', 'data-hardware'), 'h100-sxm');
    assert.equal(r.steps.model.modeled, true);
    assert.equal(r.steps.model.kv_budget_tokens, 426788);

    const queue = await readTable(page, '#gpu-queue-table');
    assert.deepEqual(queue.map((row) => row.policy), ['serial-nocache', 'serial-cache', 'static:256', 'continuous:256']);
    for (const row of queue) assert.ok(row.values.tokens_per_s > 0, row.policy);
    assert.ok(queue[3].values.tokens_per_s > queue[1].values.tokens_per_s, 'continuous batching serves more tokens/s than one at a time');

    const gain = await readTable(page, '#gpu-gain-table');
    assert.deepEqual(gain.map((row) => row.rows), ['1', '16', '64', '256']);
    assert.ok(gain[3].values.gain > 50, `256 rows give ${gain[3].values.gain}x the tokens/s of one`);

    const memory = await readTable(page, '#gpu-memory-table');
    assert.deepEqual(memory.map((row) => row.policy), ['continuous:256', 'reserve:256', 'paged:256', 'chunked:256,2048']);
    const paged = r.memory.results['paged:256'];
    const reserve = r.memory.results['reserve:256'];
    assert.equal(paged.kv_blocks_budget, Math.floor(426788 / 16));
    assert.ok(reserve.waste_pct > paged.waste_pct, 'reserve wastes more of what it holds');
    const words = await page.textContent('#gpu-memory-words');
    assert.match(words, /426,788 tokens at 131,072 bytes each/);
    assert.match(words, /no scaling/);

    // Labelled as modeled everywhere it appears.
    for (const id of ['gpu-queue-table', 'gpu-gain-table', 'gpu-memory-table']) {
      assert.match(await page.$eval(`#${id} caption`, (c) => c.textContent), /^Modeled: 1 x NVIDIA H100 80GB SXM5/, id);
    }
    assert.match(await page.textContent('#gpu-label'), /^Modeled, not measured: /);
    assert.match(await page.textContent('#gpu-blocks-caption'), /^Modeled: /);
    assert.equal(await page.$$eval('#gpu-chart-blocks canvas', (c) => c.length), 1);
    const checks = await readTable(page, '#gpu-checks-table');
    assert.ok(checks.length >= 5, `${checks.length} published figures for the H100`);
    for (const row of checks) assert.ok(Number.isFinite(row.values.error_pct));
    await shot(page, 'hardware-h100.png');

    // On an RTX 4090 the budget binds (42,266 tokens): paged runs more requests at once and finishes sooner.
    await page.evaluate(() => { window.kvlabHardwareResult = undefined; });
    await page.selectOption('#gpu-hardware', 'rtx-4090');
    const small = await waitForHardware(page);
    assert.equal(small.steps.model.kv_budget_tokens, 42266);
    const smallPaged = small.memory.results['paged:256'];
    const smallReserve = small.memory.results['reserve:256'];
    assert.equal(smallReserve.peak_kv_blocks, smallReserve.kv_blocks_budget);
    assert.ok(smallPaged.makespan_ms < smallReserve.makespan_ms, 'paged finishes the queue before reserve');
    assert.match(await page.textContent('#gpu-memory-words'), /42,266 tokens .*so more requests run at once in the same memory and the queue is done/);
    assert.match(await page.$eval('#gpu-queue-table caption', (c) => c.textContent), /^Modeled: 1 x NVIDIA GeForce RTX 4090/);

    // Back to this device: the modeled view goes, the measured page is untouched.
    await page.selectOption('#gpu-hardware', 'measured');
    assert.equal(await page.$eval('#gpu-results', (el) => el.hidden), true);
    assert.equal(await page.getAttribute('#hardware', 'data-hardware'), 'measured');
  });

  test('a combination that does not fit and bad slots are errors that say why', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
    await page.fill('#gpu-slots', '300');
    await page.selectOption('#gpu-hardware', 'rtx-4090');
    assert.match(await page.textContent('#gpu-slots-error'), /Slots must be a whole number from 1 to 256 \(got “300”\)/);
    await page.fill('#gpu-slots', '64');
    await page.selectOption('#gpu-model', 'llama-3.1-70b');
    await page.click('#gpu-run');
    await page.waitForFunction(() => !document.getElementById('gpu-error').hidden, null, { timeout: 60000 });
    assert.match(await page.textContent('#gpu-error-message'), /The module refused these settings/);
    assert.match(await page.textContent('#gpu-error-detail'), /What fits on rtx-4090: bf16 weights at tp = 8, fp8 weights at tp = 4, int4 weights at tp = 2/);
  });

  test('no page logged an error', () => session.checkPages(3));
});
