// Browser tests of the hardware switch in the queue and memory chapters: "this device
// (measured)" is the default; a GPU preset (the module's rooflinePresets()) is modeled in a job worker, and
// the chapters show the lab's queue under four policies, the rows gain at 1, 16, 64 and 256 rows, the
// memory policies at the GPU's real KV budget in tokens, plots and the published checks, each labelled as
// modeled; back on this device the measured views are as they were. Figures are compared with the wasm
// module's own roofline() in Node; no timing is asserted.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import { SMALL_LAB, axeViolations, chromiumOnly, pageSession, shot, waitForResult } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { loadModule } = require('../wasm/helpers.js');

const session = pageSession();
const { openPage } = session;
let kvlab = null;
before(async () => {
  kvlab = await loadModule();
});

// A table's rows as {policy, rows, values: {key: number}} (NaN for "–").
function readTable(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((row) => ({
      policy: row.dataset.policy,
      rows: row.dataset.rows,
      values: Object.fromEntries(
        Array.from(row.querySelectorAll('td[data-key]')).map((td) => [
          td.dataset.key,
          td.dataset.value === '' ? NaN : Number(td.dataset.value),
        ])
      ),
    }))
  );
}

// The switch starts with this device's two choices (measured, WebGPU); the module's GPU presets follow.
async function waitForPresets(page) {
  const presetCount = kvlab.rooflinePresets().gpus.length;
  await page.waitForFunction(
    (count) => {
      const selects = Array.from(document.querySelectorAll('select[id$="-hw-gpu"]'));
      return selects.length > 0 && selects.every((select) => select.options.length >= 2 + count);
    },
    presetCount,
    { timeout: 30000, polling: 100 }
  );
}

// Chooses a GPU in a chapter's switch and waits for the modeled result (or fails with the error shown).
async function choose(page, part, gpu) {
  await page.evaluate(() => {
    delete window.kvlabHardwareResult;
  });
  await page.selectOption(`#${part}-hw-gpu`, gpu);
  await page.waitForFunction(
    (p) => window.kvlabHardwareResult !== undefined || !document.getElementById(`${p}-hw-error`).hidden,
    part,
    { timeout: 90000, polling: 100 }
  );
  const error = await page.evaluate(
    (p) =>
      document.getElementById(`${p}-hw-error`).hidden ? null : document.getElementById(`${p}-hw-error`).textContent,
    part
  );
  assert.equal(error, null, `the hardware switch reported an error: ${error}`);
  return page.evaluate(() => window.kvlabHardwareResult);
}

const hidden = (page, selector) => page.$eval(selector, (el) => el.hidden);
const canvases = (page, selector) => page.$$eval(`${selector} canvas`, (list) => list.length);

describe('the hardware switch', { timeout: 240000 }, () => {
  test('offers the module’s presets in the queue and memory chapters, this device (measured) the default', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
    await waitForPresets(page);
    const presets = kvlab.rooflinePresets();
    for (const part of ['queue', 'memory']) {
      assert.equal(await page.$eval(`#${part}-hw-gpu`, (s) => s.value), 'measured', part);
      assert.equal(await page.getAttribute(`#chapter-${part} .chapter-body`, 'data-hardware'), 'measured', part);
      assert.deepEqual(await page.$$eval(`#${part}-hw-gpu option`, (o) => o.map((x) => x.value)), [
        'measured',
        'webgpu',
        ...presets.gpus.map((g) => g.name),
      ]);
      assert.deepEqual(
        await page.$$eval(`#${part}-hw-model option`, (o) => o.map((x) => x.value)),
        presets.models.map((m) => m.name)
      );
      assert.deepEqual(await page.$$eval(`#${part}-hw-weights option`, (o) => o.map((x) => x.value)), presets.weights);
      assert.equal(await hidden(page, `#chapter-${part} .hw-modeled`), true, part);
    }
  });

  test('an H100: the four-policy table, the rows gain, the real KV budget, paged beside reserve; back to this device', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    await waitForPresets(page);
    await page.waitForSelector('#chapter-memory .hw-measured .played-panel', { timeout: 120000 });
    const measuredPanels = await page.$$eval('#chapter-queue .hw-measured .played-panel', (list) =>
      list.map((el) => el.dataset.policy)
    );
    assert.equal(measuredPanels.length, 4);

    const r = await choose(page, 'queue', 'h100-sxm');
    const expected = kvlab.roofline({ gpu: 'h100-sxm', model: 'llama-3.1-8b' });
    assert.deepEqual(r.steps, expected, 'the page modeled the module’s own table');
    for (const part of ['queue', 'memory']) {
      assert.equal(
        await page.$eval(`#${part}-hw-gpu`, (s) => s.value),
        'h100-sxm',
        `${part}: one choice for both chapters`
      );
      assert.equal(await page.getAttribute(`#chapter-${part} .chapter-body`, 'data-hardware'), 'h100-sxm');
      assert.equal(await hidden(page, `#chapter-${part} .hw-measured`), true, `${part}: the measured view makes way`);
      assert.match(
        await page.textContent(`#chapter-${part} .hw-label`),
        /^Modeled, not measured: 1 × NVIDIA H100 80GB SXM5, Llama 3\.1 8B/
      );
    }

    // The queue chapter: four policies with finite figures from the result, and its plots.
    const queue = await readTable(page, '#queue-hw-table');
    assert.deepEqual(
      queue.map((row) => row.policy),
      ['serial-nocache', 'serial-cache', 'static:256', 'continuous:256']
    );
    for (const row of queue) {
      for (const key of ['median_ttft_ms', 'p95_ttft_ms', 'makespan_ms', 'tokens_per_s']) {
        assert.ok(Number.isFinite(row.values[key]), `${row.policy} ${key}`);
        assert.equal(row.values[key], r.queue.results[row.policy][key], `${row.policy} ${key}`);
      }
    }
    assert.ok(
      queue[3].values.tokens_per_s > queue[1].values.tokens_per_s,
      'continuous batching serves more tokens/s than one at a time'
    );
    const gain = await readTable(page, '#queue-hw-gain-table');
    assert.deepEqual(
      gain.map((row) => row.rows),
      ['1', '16', '64', '256']
    );
    const column = expected.decode.contexts.indexOf(1024);
    for (const row of gain) {
      const stepMs = expected.decode.ms[expected.decode.rows.indexOf(Number(row.rows))][column];
      assert.equal(row.values.step_ms, stepMs, `${row.rows} rows`);
    }
    assert.ok(gain[3].values.gain > 16, `256 rows give ${gain[3].values.gain}× the tokens/s of one`);
    assert.equal(await canvases(page, '#queue-hw-chart-policies'), 1);
    assert.equal(await canvases(page, '#queue-hw-chart-gain'), 1);
    const checks = await readTable(page, '#queue-hw-checks-table');
    assert.ok(checks.length >= 5, `${checks.length} published figures for the H100`);
    for (const row of checks) assert.ok(Number.isFinite(row.values.error_pct));
    // Each figure is named by its source, a link to the version read, not by an id.
    const sources = await page.$$eval('#queue-hw-checks-table tbody th', (cells) =>
      cells.map((cell) => ({ text: cell.textContent, href: cell.querySelector('a')?.href }))
    );
    for (const { text, href } of sources) {
      assert.match(href, /^https:\/\/(github\.com|johnmusgrave\.com)\//, text);
      assert.doesNotMatch(text, /h100-/, 'an id as a label');
    }
    for (const id of ['queue-hw-table', 'queue-hw-gain-table', 'memory-hw-table']) {
      assert.match(await page.$eval(`#${id} caption`, (c) => c.textContent), /^Modeled: 1 × NVIDIA H100 80GB SXM5/, id);
    }

    // The memory chapter: the GPU's own KV budget in tokens, paged running more at once than reserve.
    const budget = expected.model.kv_budget_tokens;
    assert.equal(r.memory.simulate_options.kv_tokens, budget);
    const words = await page.textContent('#chapter-memory .hw-view .chapter-words');
    assert.ok(
      words.includes(
        `${budget.toLocaleString('en-US')} tokens at ${expected.model.kv_bytes_per_token.toLocaleString('en-US')} bytes each`
      ),
      words
    );
    assert.match(words, /no scaling step/);
    const memory = await readTable(page, '#memory-hw-table');
    assert.deepEqual(
      memory.map((row) => row.policy),
      ['continuous:256', 'reserve:256', 'paged:256', 'chunked:256,2048']
    );
    const byPolicy = Object.fromEntries(memory.map((row) => [row.policy, row.values]));
    assert.ok(
      byPolicy['paged:256'].peak_at_once > byPolicy['reserve:256'].peak_at_once,
      `paged ran ${byPolicy['paged:256'].peak_at_once} at once, reserve ${byPolicy['reserve:256'].peak_at_once}`
    );
    assert.equal(byPolicy['paged:256'].peak_at_once, r.memory.results['paged:256'].requests_at_once.peak);
    assert.doesNotMatch(words, /paged fits no more than reserve/);
    assert.equal(r.memory.results['paged:256'].kv_blocks_budget, Math.floor(budget / 16));
    assert.equal(await canvases(page, '#memory-hw-chart-blocks'), 1);
    assert.deepEqual(
      await page.$$eval('#chapter-memory .hw-modeled .played-panel', (list) => list.map((el) => el.dataset.policy)),
      ['reserve:256', 'paged:256']
    );
    await shot(page, 'hardware-h100.png');

    assert.deepEqual(await axeViolations(page, '#walkthrough'), [], 'axe on the walkthrough with the switch on a GPU');

    // Back to this device, from the other chapter's switch: the measured views as they were.
    await page.selectOption('#memory-hw-gpu', 'measured');
    for (const part of ['queue', 'memory']) {
      assert.equal(await page.$eval(`#${part}-hw-gpu`, (s) => s.value), 'measured');
      assert.equal(await hidden(page, `#chapter-${part} .hw-measured`), false, part);
      assert.equal(await hidden(page, `#chapter-${part} .hw-modeled`), true, part);
      assert.equal(await page.getAttribute(`#chapter-${part} .chapter-body`, 'data-hardware'), 'measured');
    }
    assert.deepEqual(
      await page.$$eval('#chapter-queue .hw-measured .played-panel', (list) => list.map((el) => el.dataset.policy)),
      measuredPanels
    );
    assert.equal(await page.$$eval('#chapter-memory .hw-modeled .played-panel', (list) => list.length), 0);
  });

  test(
    'a GPU chosen while this device runs waits for the lab and its memory run, which still land',
    chromiumOnly('the order of the hardware switch’s runs is the page’s own script; Firefox runs the H100 case above'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
      await waitForPresets(page);
      await page.selectOption('#queue-hw-gpu', 'l4');
      if ((await page.getAttribute('#lab', 'data-state')) === 'running') {
        assert.match(await page.textContent('#queue-hw-status'), /^Waiting for the run on this device to finish/);
      }
      await page.waitForFunction(
        () => window.kvlabHardwareResult && window.kvlabMemoryResult && window.kvlabResult,
        null,
        { timeout: 120000, polling: 100 }
      );
      const [hardwareAt, memoryAt] = await page.evaluate(() => [
        window.kvlabHardwareResult.choice.gpu,
        window.kvlabMemoryResult.policies.length,
      ]);
      assert.equal(hardwareAt, 'l4');
      assert.equal(memoryAt, 4, 'the memory run after the lab was not pushed out by the modeled server');
      assert.equal(await page.getAttribute('#chapter-memory', 'data-state'), 'landed');
    }
  );

  test('a server whose memory never binds: the memory chapter says paged fitted no more and nothing was preempted', async () => {
    const { page } = await openPage(`${session.server.url}embed.html#chapter=memory&${SMALL_LAB}`);
    await waitForPresets(page);
    const r = await choose(page, 'memory', 'h200');
    const reserve = r.memory.results['reserve:256'];
    const paged = r.memory.results['paged:256'];
    // An H200 holds the 8B model's whole queue in reserve's way: the seats, not the memory, bind.
    assert.equal(paged.requests_at_once.peak, reserve.requests_at_once.peak);
    assert.equal(paged.preemptions, 0);
    const words = await page.textContent('#chapter-memory .hw-view .chapter-words');
    assert.ok(
      words.includes(
        `Here paged fits no more than reserve: even reserve’s largest hold, ${reserve.peak_kv_blocks.toLocaleString('en-US')} of ${reserve.kv_blocks_budget.toLocaleString('en-US')} blocks, stayed within this server’s memory`
      ),
      words
    );
    assert.match(words, /, never preempting;/);
    const played = await page.textContent('#chapter-memory .hw-modeled .hw-playback');
    assert.ok(
      played.includes(
        `Not in this run: both ran at most ${paged.requests_at_once.peak.toLocaleString('en-US')} requests at once.`
      ),
      played
    );
    assert.match(played, /in this run memory never ran short, so nothing was preempted/);
    assert.doesNotMatch(played, /flashes red/);
  });

  test('works in a chapter embed (embed.html#chapter=memory) without running the lab', async () => {
    const { page } = await openPage(`${session.server.url}embed.html#chapter=memory&${SMALL_LAB}`);
    await waitForPresets(page);
    assert.equal(
      await page.$$eval('#queue-hw-gpu', (list) => list.length),
      0,
      'only the memory chapter is on the page'
    );
    const r = await choose(page, 'memory', 'a100-sxm');
    const expected = kvlab.roofline({ gpu: 'a100-sxm', model: 'llama-3.1-8b' });
    assert.equal(r.steps.model.kv_budget_tokens, expected.model.kv_budget_tokens);
    const memory = await readTable(page, '#memory-hw-table');
    assert.equal(memory.length, 4);
    for (const row of memory) assert.ok(Number.isFinite(row.values.tokens_per_s), row.policy);
    assert.match(
      await page.textContent('#chapter-memory .hw-label'),
      /^Modeled, not measured: 1 × NVIDIA A100 80GB SXM4/
    );
  });

  test('a bad slot count and a model that does not fit are errors that say why', async () => {
    const { page } = await openPage(`${session.server.url}embed.html#chapter=queue&${SMALL_LAB}`);
    await waitForPresets(page);
    await choose(page, 'queue', 'rtx-4090');
    await page.fill('#queue-hw-slots', '300');
    await page.dispatchEvent('#queue-hw-slots', 'change');
    assert.match(
      await page.textContent('#queue-hw-slots-error'),
      /^Slots \(modeled server\) must be from 1 to 256 \(got "300"\)\.$/
    );
    assert.equal(await page.getAttribute('#queue-hw-slots', 'aria-invalid'), 'true');
    await page.fill('#queue-hw-slots', '64');
    await page.dispatchEvent('#queue-hw-slots', 'change');
    await page.selectOption('#queue-hw-model', 'llama-3.1-70b');
    await page.waitForFunction(() => !document.getElementById('queue-hw-error').hidden, null, {
      timeout: 60000,
      polling: 100,
    });
    // Advice in words, from the module's presets and what m.roofline() takes: no developer message.
    assert.equal(
      await page.textContent('#queue-hw-error-message'),
      'Llama 3.1 70B with bf16 weights needs 141 GB for its weights and room beside them for a KV cache, but 1 × NVIDIA GeForce RTX 4090 24GB holds 21.6 GB (24 GB each, less 10% kept for the runtime). It fits on 8 × NVIDIA GeForce RTX 4090 24GB, or with fp8 weights on 4, or with int4 weights on 2.'
    );
    assert.equal(await page.textContent('#queue-hw-error-detail'), '');
    await page.selectOption('#queue-hw-tp', '8');
    await page.waitForFunction(() => window.kvlabHardwareResult && window.kvlabHardwareResult.choice.tp === 8, null, {
      timeout: 90000,
      polling: 100,
    });
    assert.equal(await hidden(page, '#queue-hw-error'), true);
    assert.deepEqual(
      (await readTable(page, '#queue-hw-table')).map((row) => row.policy),
      ['serial-nocache', 'serial-cache', 'static:64', 'continuous:64']
    );
  });

  test(
    '“Link to these settings” carries the GPU choice, and the link opens on it',
    chromiumOnly('the link is built by the page’s own script; Firefox opens shared links in “a result’s link”'),
    async () => {
      const server = 'hw=h100-sxm&hw_model=llama-3.1-70b&hw_weights=fp8&hw_tp=4';
      // With autorun: the link's run on this device goes first, and the GPU is modeled after it.
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&${server}&autorun`);
      await waitForPresets(page);
      for (const part of ['queue', 'memory']) {
        assert.equal(await page.$eval(`#${part}-hw-gpu`, (s) => s.value), 'h100-sxm', part);
        assert.equal(await page.$eval(`#${part}-hw-model`, (s) => s.value), 'llama-3.1-70b', part);
        assert.equal(await page.$eval(`#${part}-hw-weights`, (s) => s.value), 'fp8', part);
        assert.equal(await page.$eval(`#${part}-hw-tp`, (s) => s.value), '4', part);
      }
      assert.equal(await hidden(page, '#hash-message'), true);
      await waitForResult(page, 120000);
      await page.waitForSelector('#chapter-queue .hw-modeled:not([hidden])', { timeout: 90000 });
      assert.match(
        await page.textContent('#chapter-queue .hw-label'),
        /^Modeled, not measured: 4 × NVIDIA H100 80GB SXM5, Llama 3\.1 70B/
      );
      assert.equal(await page.getAttribute('#share-link', 'href'), `#${SMALL_LAB}&${server}`);

      // Every plot's y axis is as wide as its tick labels (its title outside them), its title no longer
      // than the plot is high, and no plot wider than its place, at 1280 and at 390 px.
      const plots = () =>
        page.$$eval('[data-y-axis-px]', (list) =>
          list
            .filter((c) => c.offsetParent !== null)
            .map((c) => ({
              id: c.id,
              axis: Number(c.dataset.yAxisPx),
              labels: Number(c.dataset.yLabelsPx),
              title: Number(c.dataset.yTitlePx),
              height: Number(c.dataset.yRoomPx),
              room: c.clientWidth,
              width: c.querySelector('.uplot').getBoundingClientRect().width,
            }))
        );
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForFunction(
          () =>
            Array.from(document.querySelectorAll('[data-y-axis-px]'))
              .filter((c) => c.offsetParent !== null)
              .every(
                (c) => c.querySelector('.uplot').getBoundingClientRect().width <= Math.max(260, c.clientWidth) + 1
              ),
          null,
          { timeout: 10000, polling: 100 }
        );
        const shown = await plots();
        assert.ok(
          shown.some((p) => p.id === 'queue-hw-chart-policies'),
          JSON.stringify(shown)
        );
        for (const p of shown) {
          assert.ok(
            p.labels <= p.axis,
            `${width} px, ${p.id}: tick labels need ${p.labels} px, the axis has ${p.axis}`
          );
          assert.ok(p.title <= p.height, `${width} px, ${p.id}: a ${p.title} px title along a ${p.height} px plot`);
          assert.ok(p.width <= Math.max(260, p.room) + 1, `${width} px, ${p.id}: ${p.width} px in ${p.room}`);
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // Chosen in a switch: the link follows; back on this device it has no hw at all.
      await choose(page, 'memory', 'a100-sxm');
      assert.equal(
        await page.getAttribute('#share-link', 'href'),
        `#${SMALL_LAB}&hw=a100-sxm&hw_model=llama-3.1-70b&hw_weights=fp8&hw_tp=4`
      );
      await page.selectOption('#queue-hw-gpu', 'measured');
      assert.equal(await page.getAttribute('#share-link', 'href'), `#${SMALL_LAB}`);
    }
  );

  test('a link with an unknown GPU or a bad server field is refused with a message', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&hw=tpu-v9&hw_tp=3`);
    await waitForPresets(page);
    const names = kvlab.rooflinePresets().gpus.map((g) => g.name);
    assert.equal(await hidden(page, '#hash-message'), false);
    const message = await page.textContent('#hash-message');
    assert.ok(
      message.includes(
        `The link’s hw (the GPU) must be one of ${names.join(', ')} (got "tpu-v9"). This device is measured instead.`
      ),
      message
    );
    assert.equal(await page.$eval('#queue-hw-gpu', (s) => s.value), 'measured');
    assert.equal(await page.getAttribute('#share-link', 'href'), `#${SMALL_LAB}`);

    const other = await openPage(`${session.server.url}index.html#${SMALL_LAB}&hw=l4&hw_slots=999`);
    await waitForPresets(other.page);
    assert.match(
      await other.page.textContent('#hash-message'),
      /The link’s hw_slots must be from 1 to 256 \(got "999"\)\./
    );
    assert.equal(await other.page.$eval('#queue-hw-gpu', (s) => s.value), 'l4');
    assert.equal(await other.page.$eval('#queue-hw-slots', (s) => s.value), '256');
    assert.equal(await other.page.getAttribute('#share-link', 'href'), `#${SMALL_LAB}&hw=l4`);
  });

  test('the words cite docs/gpu.md as a link to its page, which dist/ ships, readable under the CSP', async () => {
    const { page } = await openPage(`${session.server.url}index.html`);
    await waitForPresets(page);
    const links = await page.$$eval('a[href="docs/gpu.html"]', (list) => list.map((a) => a.textContent));
    assert.ok(links.length >= 2, 'the switch’s help in both chapters, and the glossary');
    assert.ok(links.every((text) => text === 'docs/gpu.md'));
    await page.goto(`${session.server.url}docs/gpu.html`);
    assert.match(await page.textContent('h1'), /^Real servers on paper: modeled GPU step tables/);
    assert.ok((await page.$$eval('table', (list) => list.length)) >= 2, 'its tables rendered');
    assert.equal(await page.$eval('.back a', (a) => a.getAttribute('href')), '../index.html');
  });

  test('no page logged an error', () => session.checkPages({ chromium: 9, firefox: 8 }));
});
