// Browser tests of the Memory section and the "Simulated vs real" panel, on the
// page in dist/ (built by scripts/build), in the engine helpers.mjs picks. Tiny model and
// small queues only; no timing is asserted, only that the figures are finite and point the right way.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  axeViolations,
  chromiumOnly,
  dist,
  eventually,
  pageSession,
  runPanel,
  screenshots,
  shot,
  waitForResult,
} from './helpers.mjs';

const MEMORY_ORDER = ['continuous:16', 'reserve:16', 'paged:16', 'chunked:16,256'];
const REPLAY_ORDER = ['serial-nocache', 'serial-cache', 'static:8', 'continuous:8'];
// A binding budget: 256 tokens = 16 blocks, while the queue's longest request holds 127 positions
// (8 blocks), so reserve runs at most 2 requests at once; arrivals close together.
const SMALL_MEMORY = 'preset=tiny&runs=1&requests=200&kv=256&mem_rate=100000';

// Every page counts the section's and the panel's result events.
const session = pageSession({
  preparePage: (page) =>
    page.addInitScript(() => {
      window.__memoryEvents = 0;
      window.__replayEvents = 0;
      document.addEventListener('kvlab:memory-result', () => {
        window.__memoryEvents += 1;
      });
      document.addEventListener('kvlab:replay-result', () => {
        window.__replayEvents += 1;
      });
    }),
});
const { openPage } = session;
// Why the Firefox pass leaves a test out.
const SAME_CANCEL = 'the same cancel (the worker terminated) as the lab’s, which the Firefox pass checks';

async function waitForMemory(page, timeout = 60000) {
  await page.waitForFunction(
    () => window.kvlabMemoryResult !== undefined || !document.getElementById('mem-error').hidden,
    null,
    { timeout, polling: 100 }
  );
  const error = await page.evaluate(() =>
    document.getElementById('mem-error').hidden ? null : document.getElementById('mem-error').textContent
  );
  assert.equal(error, null, `the Memory section reported an error: ${error}`);
  return page.evaluate(() => window.kvlabMemoryResult);
}

// A table as [{policy, values: {key: number or NaN}}].
function readTable(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((row) => ({
      policy: row.dataset.policy,
      values: Object.fromEntries(
        Array.from(row.querySelectorAll('td[data-key]')).map((td) => [
          td.dataset.key,
          td.dataset.value === '' ? NaN : Number(td.dataset.value),
        ])
      ),
    }))
  );
}

describe('the Memory section', { timeout: 120000 }, () => {
  test('runs on the lab’s step table and renders three plots and the table', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_MEMORY}&autorun`);
    const lab = await waitForResult(page);
    const memory = await waitForMemory(page);
    assert.equal(await page.getAttribute('#memory', 'data-state'), 'done');
    assert.equal(await page.evaluate(() => window.__memoryEvents), 1);

    // No new measurement: the section simulated on the lab's table, with the lab's queue.
    assert.deepEqual(memory.policies, MEMORY_ORDER);
    assert.equal(memory.workload.count, 200);
    assert.equal(memory.kv_tokens, 256);
    assert.equal(memory.rate, 100000);
    assert.equal(lab.steps.model.preset, 'tiny');

    // Three plots, each with a canvas and a one-sentence note.
    for (const id of ['chart-mem-blocks', 'chart-mem-load', 'chart-mem-waste']) {
      assert.equal(await page.$$eval(`#${id} canvas`, (c) => c.length), 1, `${id} has no canvas`);
      const note = await page.$eval(`#${id}`, (el) =>
        el.closest('figure').querySelector('.plot-note').textContent.trim()
      );
      assert.match(note, /^[A-Z].*\.$/, `${id}: ${note}`);
      assert.equal(note.split(/\.\s/).length, 1, `${id}'s note is more than one sentence: ${note}`);
    }
    // The load curve: ten rates, a crossing line per policy.
    assert.equal(memory.load.rates.length, 10);
    for (const name of MEMORY_ORDER) {
      for (const v of memory.load.policies[name].p95_ttft_ms)
        assert.ok(Number.isFinite(v) && v > 0, `${name} load curve ${v}`);
    }
    assert.deepEqual(await page.$$eval('#mem-crossings li', (lis) => lis.map((li) => li.dataset.policy)), MEMORY_ORDER);
    // Blocks over time: every memory policy's series stays within the budget.
    for (const name of MEMORY_ORDER.slice(1)) {
      const series = memory.results[name].kv_blocks_in_use;
      assert.ok(series.t_ms.length > 10, `${name} has ${series.t_ms.length} points`);
      assert.ok(Math.max(...series.blocks) <= 16, `${name} exceeds the budget`);
    }

    // The table: four policies; the memory ones with finite figures; reserve wastes more than paged
    // under a binding budget.
    const rows = await readTable(page, '#memory-table');
    assert.deepEqual(
      rows.map((r) => r.policy),
      MEMORY_ORDER
    );
    for (const row of rows) {
      for (const key of ['median_ttft_ms', 'p95_ttft_ms', 'makespan_ms', 'goodput_pct']) {
        assert.ok(
          Number.isFinite(row.values[key]) && row.values[key] >= 0,
          `${row.policy} ${key} = ${row.values[key]}`
        );
      }
      if (row.policy.startsWith('continuous')) continue;
      for (const key of ['peak_kv_blocks', 'waste_pct', 'preemptions', 'recomputed_tokens']) {
        assert.ok(
          Number.isFinite(row.values[key]) && row.values[key] >= 0,
          `${row.policy} ${key} = ${row.values[key]}`
        );
      }
      assert.ok(Number.isNaN(row.values.prefix_hit_rate), 'no shared prefix: no hit rate');
    }
    const byPolicy = Object.fromEntries(rows.map((r) => [r.policy, r.values]));
    assert.equal(byPolicy['reserve:16'].peak_kv_blocks, 16, 'the budget binds reserve');
    assert.ok(
      byPolicy['reserve:16'].waste_pct > byPolicy['paged:16'].waste_pct,
      `reserve waste ${byPolicy['reserve:16'].waste_pct}% should exceed paged ${byPolicy['paged:16'].waste_pct}%`
    );
    assert.equal(byPolicy['reserve:16'].preemptions, 0);
    assert.match(await page.textContent('#mem-findings'), /Reserve holds .*%.*paged wastes/);
    assert.match(await page.textContent('#mem-kv-help'), /256 tokens/);

    // The job's worker ended with its run: only the lab's is left.
    await page.waitForFunction(() => document.getElementById('memory').getAttribute('aria-busy') === 'false');
    await eventually(() => page.workers().length === 1, 'the job’s worker ended with its run');

    // A system prompt that, before the queue's longest request, would pass the tiny model's 160
    // positions is refused at its field before anything runs.
    const queue = Object.values(lab.policies).find((r) => r.queue_timeline).queue_timeline.requests;
    const longest = Math.max(...queue.prompt_tokens.map((p, i) => p + queue.answer_tokens[i] - 1));
    assert.equal(lab.steps.model.max_seq, 160);
    await page.fill('#mem-system', String(161 - longest));
    await page.click('#mem-run');
    assert.equal(
      await page.textContent('#mem-system-error'),
      `Shared system prompt (tokens) must be from 0 to ${160 - longest}: the tiny model’s context holds 160 positions, and this queue’s longest request takes ${longest} of them after the system prompt (prompt + answer − 1) (got "${161 - longest}").`
    );
    assert.equal(await page.evaluate(() => window.__memoryEvents), 1);

    // A shared system prompt: paged and chunked find it cached, reserve does not reuse. (32 tokens: with
    // the longest request's 32 + 96 - 1 they fill tiny's 160 positions less one; more is refused.)
    await page.fill('#mem-system', '32');
    await page.dispatchEvent('#mem-system', 'change');
    assert.match(await page.evaluate(() => location.hash), /system_prompt=32/);
    await page.evaluate(() => {
      window.kvlabMemoryResult = undefined;
    });
    await page.click('#mem-run');
    await waitForMemory(page);
    const shared = Object.fromEntries((await readTable(page, '#memory-table')).map((r) => [r.policy, r.values]));
    assert.ok(
      shared['paged:16'].prefix_hit_rate > 0 && shared['paged:16'].prefix_hit_rate < 1,
      `hit rate ${shared['paged:16'].prefix_hit_rate}`
    );
    assert.ok(Number.isNaN(shared['reserve:16'].prefix_hit_rate));
    assert.match(await page.textContent('#mem-findings'), /system prompt/);

    await page.waitForTimeout(200);
    await page.locator('#memory').screenshot({ path: path.join(screenshots, 'memory-tiny.png') });
  });

  test(
    'invalid memory settings show messages naming the field and its range',
    chromiumOnly('the same form code as the lab’s form, which the Firefox pass checks'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      await page.selectOption('#mem-device', 'custom');
      await page.fill('#mem-kv', '100');
      await page.fill('#mem-block', '0');
      await page.fill('#mem-rate', 'fast');
      await page.fill('#mem-system', '1000001');
      await page.fill('#mem-chunk', '8');
      await page.fill('#mem-target', '-1');
      await page.click('#mem-run');
      const message = (id) => page.textContent(`#${id}-error`);
      assert.match(await message('mem-block'), /Block size \(tokens\) must be from 1 to 65,536 \(got "0"\)/);
      assert.match(
        await message('mem-rate'),
        /Memory arrival rate \(requests\/s, or auto\) must be a number \(got "fast"\)/
      );
      assert.match(
        await message('mem-system'),
        /Shared system prompt \(tokens\) must be from 0 to 1,000,000 \(got "1000001"\)/
      );
      assert.match(
        await message('mem-chunk'),
        /tokens per step\) must be from 16 to 1,000,000: a step holds a decode row for each of the 16 slots \(got "8"\)/
      );
      assert.match(await message('mem-target'), /TTFT target \(ms\) must be a number \(got "-1"\)/);
      assert.equal(await page.isVisible('#mem-form-error'), true);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'mem-block'); // the first bad field
      assert.equal(await page.getAttribute('#mem-block', 'aria-invalid'), 'true');

      // With the block size and system prompt fixed, the budget is checked against the queue's longest request.
      await page.fill('#mem-block', '16');
      await page.fill('#mem-system', '0');
      await page.click('#mem-run');
      assert.match(
        await message('mem-kv'),
        /KV budget \(tokens\) must be from 128 to 1,000,000,000,000: the longest request of this queue \(prompt up to 32 \+ answer up to 96 − 1 = 127 positions\) needs 8 blocks of 16 tokens \(got "100"\)/
      );
      assert.equal(await page.isVisible('#mem-block-error'), false);

      // Fixed values clear their messages; before the lab has run, the section says so.
      for (const [id, value] of [
        ['mem-kv', '512'],
        ['mem-rate', 'auto'],
        ['mem-system', '0'],
        ['mem-chunk', '64'],
        ['mem-target', '500'],
      ]) {
        await page.fill(`#${id}`, value);
        await page.dispatchEvent(`#${id}`, 'change');
      }
      for (const id of ['mem-kv', 'mem-block', 'mem-rate', 'mem-system', 'mem-chunk', 'mem-target']) {
        assert.equal(await page.isVisible(`#${id}-error`), false, `${id} message still shown`);
      }
      assert.equal(await page.isVisible('#mem-form-error'), false);
      await page.press('#mem-target', 'Enter');
      assert.match(await page.textContent('#mem-phase'), /Run the lab first/);
      assert.equal(await page.evaluate(() => window.kvlabMemoryResult), undefined);
    }
  );

  test(
    'the hash keeps the memory settings, and a bad one falls back with a message',
    chromiumOnly('the same hash code as the lab’s, which the Firefox pass checks'),
    async () => {
      const hash = 'preset=tiny&kv=24gb-llama2-7b&block=8&mem_rate=40&system_prompt=32&chunk=128&ttft_target=250';
      const { page } = await openPage(`${session.server.url}index.html#${hash}`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      const values = await page.evaluate(() =>
        Object.fromEntries(
          ['mem-device', 'mem-block', 'mem-rate', 'mem-system', 'mem-chunk', 'mem-target'].map((id) => [
            id,
            document.getElementById(id).value,
          ])
        )
      );
      assert.deepEqual(values, {
        'mem-device': '24gb-llama2-7b',
        'mem-block': '8',
        'mem-rate': '40',
        'mem-system': '32',
        'mem-chunk': '128',
        'mem-target': '250',
      });
      assert.equal(await page.isVisible('#hash-message'), false);
      // The device example is worked through: 5.72 conversations of 4,096 tokens, scaled to this queue.
      const help = await page.textContent('#mem-kv-help');
      assert.match(help, /Llama 2 7B/);
      assert.match(help, /23,448 tokens at 512 KiB each, 5\.72 conversations of 4,096 tokens/);
      // The longest request: system prompt 32 + prompt 32 + answer 96 - 1 = 159 positions; 5.724 x 159 = 910.2.
      assert.match(help, /159 positions each\) is 910 tokens/);
      assert.equal(await page.inputValue('#mem-kv'), '910');
      // The page writes back exactly what it read.
      assert.equal(decodeURIComponent(await page.evaluate(() => location.hash.slice(1))), hash);

      // A number of tokens from the slider's field: the hash follows.
      await page.fill('#mem-kv', '2048');
      await page.dispatchEvent('#mem-kv', 'change');
      assert.equal(await page.inputValue('#mem-device'), 'custom');
      assert.match(await page.evaluate(() => location.hash), /kv=2048/);

      // Bad values: messages, defaults in their place, the good part kept, nothing from the URL as markup.
      await page.goto(`${session.server.url}index.html#preset=tiny&kv=%3Cb%3Ex%3C%2Fb%3E&block=0&mem_rate=-3&chunk=20`);
      await page.waitForSelector('#hash-message:not([hidden])');
      const message = await page.textContent('#hash-message');
      assert.match(
        message,
        /KV budget must be a whole number of tokens or one of 24gb-llama31-8b, .* \(got "<b>x<\/b>"\)/
      );
      assert.match(message, /Block size \(tokens\) must be from 1 to 65,536 \(got "0"\)/);
      assert.match(message, /Memory arrival rate .* must be a number \(got "-3"\)/);
      assert.equal(await page.$$eval('#hash-message b', (b) => b.length), 0);
      assert.equal(await page.inputValue('#mem-device'), '80gb-llama31-70b-fp8');
      assert.equal(await page.inputValue('#mem-block'), '16');
      assert.equal(await page.inputValue('#mem-rate'), 'auto');
      assert.equal(await page.inputValue('#mem-chunk'), '20');
    }
  );
});

describe('the standalone file', { timeout: 120000 }, () => {
  test(
    'runs the Memory section from file:// (the job worker from a Blob URL)',
    chromiumOnly(
      'in Firefox the standalone test of page.test.mjs runs the lab and then this section from the same Blob URL'
    ),
    async () => {
      const url = `${pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href}#${SMALL_MEMORY}&autorun`;
      const { page, log } = await openPage(url);
      await waitForResult(page);
      const memory = await waitForMemory(page);
      assert.deepEqual(memory.policies, MEMORY_ORDER);
      assert.deepEqual(
        (await readTable(page, '#memory-table')).map((r) => r.policy),
        MEMORY_ORDER
      );
      const foreign = log.requests.filter(
        (u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')
      );
      assert.deepEqual(foreign, []);
    }
  );
});

describe('the Simulated vs real panel', { timeout: 120000 }, () => {
  test('replays the queue for real and shows both tables with the errors and both timelines', async () => {
    const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    const seen = [];
    const poll = setInterval(
      () =>
        page
          .evaluate(() => document.getElementById('replay-progress').value)
          .then(
            (v) => seen.push(v),
            () => {}
          ),
      50
    );
    await page.click('#replay-run');
    assert.equal(await page.isEnabled('#run'), false, 'the lab waits while the replay runs');
    await page.waitForFunction(
      () => window.kvlabReplayResult !== undefined || !document.getElementById('replay-error').hidden,
      null,
      { timeout: 90000, polling: 100 }
    );
    clearInterval(poll);
    assert.equal(await page.isVisible('#replay-error'), false, await page.textContent('#replay-error'));
    const result = await page.evaluate(() => window.kvlabReplayResult);
    assert.deepEqual(result.policy_order, REPLAY_ORDER);
    assert.equal(result.options.measure.preset, 'tiny');
    assert.equal(await page.evaluate(() => window.__replayEvents), 1);
    assert.ok(
      seen.some((v) => v > 0 && v < 100),
      `no intermediate progress in ${seen.join(', ')}`
    );
    assert.equal(await page.getAttribute('#replay', 'data-state'), 'done');

    const real = await readTable(page, '#replay-real-table');
    const sim = await readTable(page, '#replay-sim-table');
    assert.deepEqual(
      real.map((r) => r.policy),
      REPLAY_ORDER
    );
    assert.deepEqual(
      sim.map((r) => r.policy),
      REPLAY_ORDER
    );
    for (const row of real) {
      for (const key of ['request_count', 'median_ttft_ms', 'p95_ttft_ms', 'makespan_ms']) {
        assert.ok(
          Number.isFinite(row.values[key]) && row.values[key] > 0,
          `real ${row.policy} ${key} = ${row.values[key]}`
        );
      }
    }
    for (const row of sim) {
      for (const key of ['median_ttft_ms', 'p95_ttft_ms', 'makespan_ms']) {
        assert.ok(
          Number.isFinite(row.values[key]) && row.values[key] > 0,
          `sim ${row.policy} ${key} = ${row.values[key]}`
        );
      }
      for (const key of ['error_median_ttft', 'error_p95_ttft', 'error_makespan']) {
        assert.ok(Number.isFinite(row.values[key]), `${row.policy} ${key} = ${row.values[key]}`);
      }
      // The error shown is (sim - real) / real of the figures shown.
      const realRow = real.find((r) => r.policy === row.policy).values;
      const expected = (row.values.makespan_ms - realRow.makespan_ms) / realRow.makespan_ms;
      assert.ok(
        Math.abs(row.values.error_makespan - expected) < 1e-9,
        `${row.policy}: ${row.values.error_makespan} vs ${expected}`
      );
    }
    // Each error is shown as its value to one decimal, signed, as the CLI prints it.
    const shownErrors = await page.$$eval('#replay-sim-table td[data-key^="error_"]', (cells) =>
      cells.map((td) => ({ text: td.textContent, value: Number(td.dataset.value) }))
    );
    assert.equal(shownErrors.length, 3 * REPLAY_ORDER.length);
    for (const { text, value } of shownErrors) {
      const match = /^([+−]?)(\d+\.\d)%$/.exec(text);
      assert.ok(match, `error ${value} shown as "${text}"`);
      const shown = (match[1] === '−' ? -1 : 1) * Number(match[2]);
      assert.ok(Math.abs(shown - value * 100) <= 0.05 + 1e-9, `error ${value} shown as "${text}"`);
      assert.equal(
        match[1] === '',
        match[2] === '0.0',
        `error ${value} shown as "${text}": a sign unless it rounds to 0.0`
      );
    }
    assert.equal(real[0].values.request_count, 16); // serial-nocache replays the first 16 requests
    assert.equal(real[3].values.request_count, 64);
    assert.match(await page.textContent('#replay-finding'), /within ±5%/);

    // Both slot timelines, for the policy chosen (continuous by default, then another).
    for (const id of ['chart-replay-real', 'chart-replay-sim'])
      assert.equal(await page.$$eval(`#${id} canvas`, (c) => c.length), 1, id);
    assert.equal(await page.inputValue('#replay-policy'), 'continuous:8');
    const caption = await page.textContent('#replay-gantt-real-caption');
    assert.match(caption, /^Real run: the first \d+ requests done at/);
    await page.selectOption('#replay-policy', 'static:8');
    assert.notEqual(await page.textContent('#replay-gantt-real-caption'), caption);
    assert.match(await page.textContent('#replay-steps-table caption'), /Static batches of 8/);
    assert.ok((await page.$$eval('#replay-steps-table tbody tr', (trs) => trs.length)) > 0);
    // The same passes by what ran before them: static batches decode after their batch's prefills, and
    // every batch after the first starts its prefills after a decode pass.
    assert.match(
      await page.textContent('#replay-history-table caption'),
      /Static batches of 8: the same passes by what ran before them/
    );
    const history = await page.$$eval('#replay-history-table tbody tr', (trs) =>
      trs.map((tr) => `${tr.dataset.pass}: ${tr.cells[1].textContent}`)
    );
    for (const group of [
      'decode: 1 pass after a prompt pass',
      'prompt: first of the run',
      'prompt: after a decode pass',
      'prompt: after a prefill pass',
    ]) {
      assert.ok(history.includes(group), `${group} in ${history}`);
    }
    assert.equal(await page.isEnabled('#run'), true);

    await eventually(() => page.workers().length === 1, 'the replay’s worker ended with its run');
  });

  test(
    'serves the memory policies for real, with their KV columns, timelines and mixed passes',
    chromiumOnly('the same wasm engine as the queue replay, which Firefox runs'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      for (const family of ['serial-nocache', 'serial-cache', 'static']) await page.uncheck(`#replay-family-${family}`);
      for (const family of ['paged', 'chunked']) await page.check(`#replay-family-${family}`);
      // 256 tokens: room for 3 of the queue's longest requests (79 positions) in 16-token blocks, for 8 slots.
      await page.fill('#replay-kv', '256');
      await page.fill('#replay-chunk', '48');
      assert.equal(await page.textContent('#replay-family-chunked-label'), 'Chunked prefill, 8 slots, 48 tokens/step');
      await page.click('#replay-run');
      await page.waitForFunction(
        () => window.kvlabReplayResult !== undefined || !document.getElementById('replay-error').hidden,
        null,
        { timeout: 90000, polling: 100 }
      );
      assert.equal(await page.isVisible('#replay-error'), false, await page.textContent('#replay-error'));
      const result = await page.evaluate(() => window.kvlabReplayResult);
      const order = ['continuous:8', 'paged:8', 'chunked:8,48'];
      assert.deepEqual(result.policy_order, order);
      assert.deepEqual(result.options.policies, ['continuous:8', 'paged:8', 'chunked:8,48']);
      assert.equal(result.options.kv_tokens, 256);
      assert.equal(result.options.block_tokens, 16);

      const real = await readTable(page, '#replay-real-table');
      const sim = await readTable(page, '#replay-sim-table');
      assert.deepEqual(
        real.map((r) => r.policy),
        order
      );
      assert.deepEqual(
        sim.map((r) => r.policy),
        order
      );
      for (const [side, rows] of [
        ['real', real],
        ['sim', sim],
      ]) {
        for (const row of rows) {
          for (const key of ['median_ttft_ms', 'makespan_ms'])
            assert.ok(row.values[key] > 0, `${side} ${row.policy} ${key} = ${row.values[key]}`);
          const memory = row.policy !== 'continuous:8';
          // The memory columns: counts for the memory policies, "–" for continuous batching (no KV memory).
          for (const key of ['preemptions', 'recomputed_tokens']) {
            assert.equal(Number.isFinite(row.values[key]), memory, `${side} ${row.policy} ${key} = ${row.values[key]}`);
            if (memory)
              assert.equal(row.values[key], result.policies[row.policy][side][key], `${side} ${row.policy} ${key}`);
          }
        }
      }
      assert.ok(real.find((r) => r.policy === 'paged:8').values.preemptions > 0, 'the budget binds: paged:8 preempts');

      await page.selectOption('#replay-policy', 'paged:8');
      assert.match(
        await page.textContent('#replay-gantt-real-caption'),
        /^Real run: the first \d+ requests done at .*; [\d,]+ preemptions, [\d,]+ tokens recomputed$/
      );
      assert.match(
        await page.textContent('#replay-gantt-sim-caption'),
        /; [\d,]+ preemptions, [\d,]+ tokens recomputed$/
      );
      for (const id of ['chart-replay-real', 'chart-replay-sim'])
        assert.equal(await page.$$eval(`#${id} canvas`, (c) => c.length), 1, id);
      await page.selectOption('#replay-policy', 'chunked:8,48');
      const kinds = await page.$$eval('#replay-steps-table tbody tr', (trs) => trs.map((tr) => tr.dataset.kind));
      assert.ok(kinds.includes('mixed'), `chunked ran mixed passes: ${kinds}`);
      const mixedCell = (key) =>
        page.$eval(`#replay-steps-table tbody tr[data-kind="mixed"] td[data-key="${key}"]`, (td) => td.dataset.value);
      const realMixedMs = Number(await mixedCell('real_ms'));
      const formulaRatio = await mixedCell('formula_ratio');
      // Firefox's clock ticks every millisecond, so the tiny model's few mixed passes can read 0 ms in all:
      // then no ratio exists and the cell stays empty.
      if (realMixedMs > 0)
        assert.ok(Number(formulaRatio) > 0, `the formula priced the mixed passes too: ${formulaRatio}`);
      else assert.equal(formulaRatio, '', `no ratio over 0 ms of real mixed passes: ${formulaRatio}`);
      assert.match(
        await page.textContent('#replay-steps-table tfoot'),
        /misses the measured grid’s 4 cells by [\d.]+% on average/
      );

      await page.click('#replay-steps-summary'); // open the step check
      assert.deepEqual(await axeViolations(page, '#replay'), [], 'axe on the panel with memory policies');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('#replay').screenshot({ path: path.join(screenshots, `replay-memory-${width}.png`) });
      }
    }
  );

  test('a bad setting marks its field, by the page or by the module, and nothing else runs', async () => {
    const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    await page.check('#replay-family-paged');
    await page.fill('#replay-kv', '0');
    await page.click('#replay-run');
    assert.equal(await page.getAttribute('#replay-kv', 'aria-invalid'), 'true');
    assert.equal(
      await page.textContent('#replay-kv-error'),
      'KV budget (tokens) must be from 1 to 1,000,000,000,000 (got "0").'
    );
    assert.equal(await page.evaluate(() => document.activeElement.id), 'replay-kv');
    assert.equal(await page.getAttribute('#replay', 'data-state'), 'ready');
    assert.deepEqual(await axeViolations(page, '#replay'), [], 'axe on the panel with a field marked');
    await page.fill('#replay-kv', '512');
    assert.equal(await page.isVisible('#replay-kv-error'), false, 'the message follows the value');

    for (const family of ['serial-nocache', 'serial-cache', 'static', 'continuous', 'paged'])
      await page.uncheck(`#replay-family-${family}`);
    await page.click('#replay-run');
    assert.equal(await page.textContent('#replay-policies-error'), 'Policies: choose at least one of the 7.');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'replay-family-serial-nocache');

    // In range for the page, too small for the module: paged:8 cannot hold the queue's longest request
    // (79 positions) in 40 tokens. The module's error names the field and the page marks it.
    await page.check('#replay-family-paged');
    await page.fill('#replay-kv', '40');
    await page.click('#replay-run');
    await page.waitForSelector('#replay-kv[aria-invalid="true"]', { timeout: 30000 });
    assert.match(await page.textContent('#replay-kv-error'), /kv_tokens|KV|budget/i);
    assert.equal(await page.isVisible('#replay-error'), false);
    assert.equal(await page.evaluate(() => window.kvlabReplayResult), undefined);
  });

  test('Cancel stops the replay’s worker, and the lab’s is untouched', chromiumOnly(SAME_CANCEL), async () => {
    const { page } = await openPage(`${session.server.url}index.html`); // the default (small) model: a run of several seconds
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    const [labWorker] = page.workers();
    const { endedWithin } = await runPanel(page, 'replay');
    await page.waitForFunction(() => document.getElementById('replay-progress').value > 0, null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#replay', 'data-state'), 'running');
    assert.equal(await page.isEnabled('#simd-run'), false);
    await page.click('#replay-cancel');
    assert.equal(await page.getAttribute('#replay', 'data-state'), 'cancelled');
    assert.match(await page.textContent('#replay-phase'), /Cancelled/);
    assert.equal(await endedWithin(15000), true, 'the replay’s worker was not terminated');
    assert.deepEqual(page.workers(), [labWorker]);
    assert.equal(await page.evaluate(() => document.getElementById('replay-progress').value), 0);
    assert.equal(await page.evaluate(() => window.kvlabReplayResult), undefined);
    assert.equal(await page.isEnabled('#replay-run'), true);
    assert.equal(await page.isEnabled('#replay-cancel'), false);
    assert.equal(await page.isEnabled('#run'), true);
    assert.equal(await page.isEnabled('#simd-run'), true);
  });
});

// A suite of its own, with its own time: Firefox on a loaded machine takes most of the panel's suite's 120 s.
describe('the Simulated vs real panel with a shared prefix', { timeout: 120000 }, () => {
  test(
    'serves a chat for real: paged and chunked report their prefix hits beside the simulator’s, and the prefix field is checked',
    chromiumOnly('the same wasm engine as the queue replay, which Firefox runs'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#preset=tiny`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      assert.equal(await page.isEnabled('#replay-prefix'), false, 'no shared prefix: no size');
      await page.selectOption('#replay-prefix-kind', 'system');
      assert.equal(await page.textContent('#replay-prefix-label'), 'System prompt (tokens)');
      assert.equal(await page.inputValue('#replay-prefix'), '64');
      await page.fill('#replay-prefix', '0');
      await page.click('#replay-run');
      assert.equal(await page.getAttribute('#replay-prefix', 'aria-invalid'), 'true');
      assert.equal(
        await page.textContent('#replay-prefix-error'),
        'System prompt (tokens) must be from 1 to 1,000,000 (got "0").'
      );
      assert.equal(await page.evaluate(() => document.activeElement.id), 'replay-prefix');
      // In range for the page, too long for the tiny model (160 positions): the module's error marks the field.
      await page.fill('#replay-prefix', '200');
      await page.click('#replay-run');
      await page.waitForSelector('#replay-prefix[aria-invalid="true"]', { timeout: 30000 });
      assert.match(await page.textContent('#replay-prefix-error'), /max_seq = 160/);
      assert.equal(await page.evaluate(() => window.kvlabReplayResult), undefined);

      await page.selectOption('#replay-prefix-kind', 'chat');
      assert.equal(await page.textContent('#replay-prefix-label'), 'Conversations');
      assert.equal(await page.inputValue('#replay-prefix'), '32');
      assert.equal(await page.isVisible('#replay-prefix-error'), false, 'the message follows the value');
      for (const family of ['serial-nocache', 'serial-cache', 'static']) await page.uncheck(`#replay-family-${family}`);
      for (const family of ['paged', 'chunked']) await page.check(`#replay-family-${family}`);
      await page.click('#replay-run');
      await page.waitForFunction(
        () => window.kvlabReplayResult !== undefined || !document.getElementById('replay-error').hidden,
        null,
        { timeout: 90000, polling: 100 }
      );
      assert.equal(await page.isVisible('#replay-error'), false, await page.textContent('#replay-error'));
      const result = await page.evaluate(() => window.kvlabReplayResult);
      assert.deepEqual(result.options.workload.chat, { conversations: 32 });
      const real = await readTable(page, '#replay-real-table');
      const sim = await readTable(page, '#replay-sim-table');
      for (const [side, rows] of [
        ['real', real],
        ['sim', sim],
      ]) {
        for (const row of rows) {
          const reuses = row.policy !== 'continuous:8';
          const rate = row.values.prefix_hit_rate;
          assert.equal(Number.isFinite(rate), reuses, `${side} ${row.policy} prefix_hit_rate = ${rate}`);
          if (reuses) {
            assert.equal(rate, result.policies[row.policy][side].prefix_hit_rate, `${side} ${row.policy}`);
            assert.ok(
              rate > 0 && rate < 1,
              `${side} ${row.policy}: a later turn finds the turn before it cached (${rate})`
            );
          }
        }
      }
      for (const policy of ['paged:8', 'chunked:8,64']) {
        assert.equal(
          real.find((r) => r.policy === policy).values.prefix_hit_rate,
          sim.find((r) => r.policy === policy).values.prefix_hit_rate,
          policy
        );
      }
      assert.match(await page.textContent('#replay-real-table thead'), /Prefix hits/);
      assert.deepEqual(await axeViolations(page, '#replay'), [], 'axe on the panel with a chat replayed');
    }
  );
});

describe('every page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages({ chromium: 6, firefox: 3 });
  });
});
