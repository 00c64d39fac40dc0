// The lab on this device's GPU (web/src/webgpu, docs/webgpu.md). Chromium with --enable-unsafe-webgpu
// (this file's browser only) offers SwiftShader, a software adapter: the self-check passes, the answer's
// tokens are the CPU's, the decode grid has every cell, the four policies are priced on the GPU's table,
// and backend=webgpu in the link comes back in the form, the hash and the hardware switch. Without the
// flag, and in Firefox, the page runs the lab on the CPU and says why. No timing is asserted.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  CHROMIUM_ARGS,
  ENGINE,
  POLICY_ORDER,
  SMALL_LAB,
  chromiumOnly,
  dist,
  pageSession,
  root,
  waitForResult,
  watchedPage,
} from './helpers.mjs';
import { serve } from '../../web/serve.mjs';
import { ratio } from '../../web/src/shared/format.js';
import { decodeRowsGrid, decodeRowsLimit } from '../../web/src/webgpu/rows-limit.js';
import { rowsLimitWords } from '../../web/src/webgpu/words.js';

const LINK = `index.html#${SMALL_LAB}&backend=webgpu&autorun`;
// A policy of every family the simulator has (chunked runs mixed steps: the GPU's mixed grid prices them).
const EVERY_FAMILY = [
  'serial-nocache',
  'serial-cache',
  'static:8',
  'continuous:8',
  'reserve:8',
  'paged:8',
  'chunked:8,32',
];

// The module in Node (the build the page ships), to price more policies on the page's GPU table.
async function nodeModule() {
  const dir = path.join(root, 'build/wasm/src/wasm');
  const createKvlab = createRequire(import.meta.url)(path.join(dir, 'kvlab.js'));
  return createKvlab({ wasmBinary: fs.readFileSync(path.join(dir, 'kvlab.wasm')) });
}
const RUN_MS = 600000;

// The replay panel's run on the page at `url` (the lab's settings in its hash), opened in `context`,
// without the policy families in `unchecked`: the result (window.kvlabReplayResult) and the summary's
// words. The page is checked for errors and for requests off its origin.
async function replayAt(context, url, unchecked = []) {
  const { page, log } = await watchedPage(context);
  await page.goto(url);
  await page.waitForSelector('#lab[data-state="ready"]', { timeout: 60000 });
  for (const family of unchecked) await page.uncheck(`#replay-family-${family}`);
  await page.click('#replay-run');
  await page.waitForFunction(
    () => window.kvlabReplayResult !== undefined || !document.getElementById('replay-error').hidden,
    null,
    { timeout: RUN_MS, polling: 200 }
  );
  assert.equal(await page.isVisible('#replay-error'), false, await page.textContent('#replay-error'));
  const result = await page.evaluate(() => window.kvlabReplayResult);
  const summary = await page.textContent('#replay-summary');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.offOrigin(new URL(url).origin), []);
  await page.close();
  return { result, summary };
}

// The page server with the isolation headers (COOP, COEP), for `run(url of its index.html)`.
async function withIsolatedServer(run) {
  const isolated = await serve({ dir: dist, isolate: true });
  try {
    return await run(`${isolated.url}index.html`);
  } finally {
    await isolated.close();
  }
}

// The CPU's answers to the replay's queue: serial-cache on the CPU (float32, as the GPU serves), in Node.
async function cpuAnswers(options) {
  const { backend, ...replay } = options;
  const cpu = (await nodeModule()).replay({
    ...replay,
    measure: { ...replay.measure, weights: 'f32', kv: 'f32' },
    policies: ['serial-cache'],
  });
  return cpu['serial-cache'].real.requests.map((request) => Array.from(request.tokens));
}

function assertCpuFallback(result, phase) {
  assert.equal(result.steps.model.backend, undefined, 'the step table is the CPU’s');
  assert.equal(result.environment.webgpu.available, false);
  assert.ok(result.environment.webgpu.reason.length > 0, 'a reason is given');
  assert.match(phase, /Ran on the CPU, not the GPU: \S/);
  assert.deepEqual(Object.keys(result.policies).sort(), [...POLICY_ORDER].sort());
}

describe(
  'with WebGPU (Chromium, --enable-unsafe-webgpu: SwiftShader)',
  chromiumOnly('Firefox offers no WebGPU here'),
  () => {
    const session = pageSession({ launchOptions: { args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

    test('backend=webgpu runs the lab on the GPU: self-check, the CPU’s tokens, every cell, four policies', async () => {
      const { page } = await session.openPage(`${session.server.url}${LINK}`);
      const result = await waitForResult(page, RUN_MS);
      const { webgpu, gpu } = result.environment;
      assert.deepEqual(webgpu, { available: true, reason: '' });
      assert.equal(gpu.architecture, 'swiftshader');
      assert.equal(gpu.software, true);
      assert.ok(gpu.limits.maxStorageBufferBindingSize > 0);

      const check = result.webgpu.self_check;
      assert.equal(check.passed, true);
      assert.ok(check.max_abs_diff <= check.tolerance, `${check.max_abs_diff} within ${check.tolerance}`);
      assert.ok(Number.isFinite(check.closest_top2_gap));

      const { answer } = result;
      assert.equal(answer.tokens_cache.length, answer.answer_tokens);
      assert.deepEqual(answer.tokens_cache, answer.cpu_tokens_cache, 'with the cache: the CPU’s tokens');
      assert.equal(answer.equal_to_cpu, true, 'with and without the cache: the CPU’s tokens');
      assert.equal(answer.identical_tokens, true);
      assert.equal(answer.divergence, null, 'no token where the GPU leaves the CPU');

      const { model, decode, prefill } = result.steps;
      assert.equal(model.backend, 'webgpu');
      assert.equal(model.timing.clock === 'timestamp-query' || model.timing.clock === 'wall', true);
      assert.equal(model.traffic.dispatches_per_step, 9 * model.n_layers + 4);
      assert.ok(model.kv_budget_tokens > 64 * model.max_seq, 'the KV budget holds 64 sequences');
      // More than 64 rows where the adapter's limits allow: the grid goes to the limit they give.
      const limit = model.decode_rows_limit;
      assert.deepEqual(limit, decodeRowsLimit(model, gpu.limits));
      assert.ok(limit.rows > 64, `${limit.rows} rows`);
      assert.deepEqual(decode.rows, decodeRowsGrid(limit.rows));
      assert.deepEqual(decode.rows.slice(0, 7), [1, 2, 4, 8, 16, 32, 64]);
      assert.deepEqual(decode.contexts, [8, 16, 32, 64, 128]);
      assert.equal(decode.ms.length, decode.rows.length);
      for (const row of decode.ms) {
        assert.equal(row.length, decode.contexts.length);
        for (const ms of row) assert.ok(Number.isFinite(ms) && ms > 0, `decode cell ${ms}`);
      }
      assert.deepEqual(prefill.tokens, [1, 2, 4, 8, 16, 32, 64, 128]);
      for (const ms of prefill.ms) assert.ok(Number.isFinite(ms) && ms > 0, `prefill cell ${ms}`);
      assert.deepEqual(Object.keys(result.policies).sort(), [...POLICY_ORDER].sort());
      for (const name of POLICY_ORDER) assert.ok(result.policies[name].makespan_ms > 0, name);
      // The mixed step (chunked prefill's) measured on the GPU too, and every family priced on the table.
      const { mixed } = result.steps;
      assert.deepEqual([mixed.chunk_tokens, mixed.rows, mixed.contexts], [[8, 32], [1, 8], [64]]);
      for (const cell of mixed.ms.flat(2)) assert.ok(Number.isFinite(cell) && cell > 0, `mixed cell ${cell}`);
      const priced = (await nodeModule()).simulate(result.steps, result.workload, EVERY_FAMILY, { kv_tokens: 4096 });
      for (const name of EVERY_FAMILY) assert.ok(priced[name].makespan_ms > 0, `${name} on the GPU’s table`);

      assert.match(
        await page.textContent('#phase'),
        /Ran on the GPU \(SwiftShader: your CPU emulating a GPU, not a GPU\): its logits within .* the answer’s tokens are the CPU’s\./
      );
      // The rows chapter: the GPU's rows gain beside the CPU's (measured in the same run) on one chart.
      const cpuDecode = result.steps.cpu_decode;
      assert.equal(cpuDecode.rows[0], 1, 'the CPU’s decode steps start at one row');
      assert.deepEqual(cpuDecode.contexts, [64], 'at the rows chapter’s context');
      const gains = await page.$$eval('#chapter-rows .rows-gain .gain-series', (groups) =>
        groups.map((g) => ({ series: g.dataset.series, gains: JSON.parse(g.dataset.gains) }))
      );
      assert.deepEqual(
        gains.map((g) => [g.series, g.gains.map((p) => p.rows)]),
        [
          ['cpu', cpuDecode.rows],
          ['gpu', decode.rows],
        ]
      );
      const gpuAt = (rows) => (rows * decode.ms[0][3]) / decode.ms[decode.rows.indexOf(rows)][3];
      const most = limit.rows;
      const gpuMost = gains[1].gains[gains[1].gains.length - 1];
      assert.equal(gpuMost.rows, most);
      assert.ok(Math.abs(gpuMost.gain - gpuAt(most)) < 1e-9, 'the GPU’s gain at its most rows is its measured one');
      const legend = await page.$$eval('#chapter-rows .rows-gain-legend li', (items) =>
        items.map((li) => li.textContent)
      );
      assert.equal(legend[0], 'this device’s CPU');
      assert.match(legend[1], /^this device’s GPU \(WebGPU: .+\) — SwiftShader: your CPU emulating a GPU, not a GPU$/);
      const cpuGain16 = gains[0].gains.find((p) => p.rows === 16).gain;
      const words = await page.textContent('#chapter-rows .rows-gain-words');
      assert.match(
        words,
        /with 16 rows this device’s CPU gives (\S+)× the tokens per second of one row, its GPU (\S+)×, and (\S+)× with \d+ rows; /
      );
      assert.ok(words.includes(`CPU gives ${ratio(cpuGain16)} the tokens`), words);
      assert.ok(words.includes(`and ${ratio(gpuAt(most))} with ${most} rows`), words);
      const chapter = await page.textContent('#chapter-rows');
      assert.match(chapter, /SwiftShader: your CPU emulating a GPU, not a GPU/);
      // SwiftShader offers no shader-f16: float32 weights, and the page says why.
      assert.deepEqual([model.weights, model.weights_reason], ['f32', 'this adapter does not offer shader-f16']);
      assert.ok(chapter.includes(', its weights float32 (this adapter does not offer shader-f16).'), chapter);
      // What capped the rows, said on the page.
      assert.ok(chapter.includes(`Its decode steps go to ${rowsLimitWords(limit, model.max_seq)}.`), chapter);

      // The link keeps the backend; the form, the switch and the environment panel show it.
      assert.match(page.url(), /[#&]backend=webgpu(&|$)/);
      assert.equal(await page.$eval('#backend', (s) => s.value), 'webgpu');
      assert.equal(await page.$eval('#queue-hw-gpu', (s) => s.value), 'webgpu');
      assert.match(
        await page.textContent('#env-list'),
        /GPU \(WebGPU\)\s*google swiftshader.*SwiftShader: your CPU emulating a GPU, not a GPU/
      );
    });

    test('choosing this device’s GPU in the hardware switch sets the lab’s backend and the link', async () => {
      const { page } = await session.openPage(`${session.server.url}index.html#${SMALL_LAB}`);
      await page.waitForFunction(() => document.querySelector('#queue-hw-gpu').options.length > 2);
      await page.selectOption('#queue-hw-gpu', 'webgpu');
      assert.equal(await page.$eval('#backend', (s) => s.value), 'webgpu');
      assert.equal(await page.$eval('#memory-hw-gpu', (s) => s.value), 'webgpu');
      await page.waitForFunction(() => /[#&]backend=webgpu(&|$)/.test(location.hash));
      await page.selectOption('#queue-hw-gpu', 'measured');
      assert.equal(await page.$eval('#backend', (s) => s.value), 'cpu');
      await page.waitForFunction(() => !/backend=/.test(location.hash));
    });

    // Prompt passes and decode over many slots. The policies left out run the same kinds of pass: a
    // no-cache pass is a prompt pass over the whole sequence, whose tokens on the GPU the lab's test above
    // checks with and without the cache (on SwiftShader: 3 minutes for all four, 1.7 with serial-nocache).
    test('a replay with backend=webgpu on an isolated page serves every pass on the GPU, with the CPU’s tokens', () =>
      withIsolatedServer(async (index) => {
        const { result, summary } = await replayAt(session.browser.context, `${index}#preset=tiny&backend=webgpu`, [
          'serial-nocache',
          'serial-cache',
          'static',
        ]);
        assert.deepEqual(result.policy_order, ['continuous:8']);
        assert.equal(result.options.backend, 'webgpu');
        assert.equal(result.device.backend, 'webgpu');
        assert.equal(result.device.gpu.architecture, 'swiftshader');
        assert.equal(result.device.self_check.passed, true);
        const answers = await cpuAnswers(result.options);
        for (const name of result.policy_order) {
          const requests = result.policies[name].real.requests;
          assert.ok(requests.length > 0, name);
          requests.forEach((request, i) => assert.deepEqual(request.tokens, answers[i], `${name} request ${i}`));
        }
        assert.match(summary, /\(on this device’s GPU through WebGPU, from one worker\)/);
        assert.match(
          summary,
          /Every forward pass, the step table’s and the served ones, ran on the GPU, .* \(SwiftShader: your CPU emulating a GPU, not a GPU\), float32 weights and KV/
        );
      }));

    test('a replay with backend=webgpu on a page that is not isolated runs on the CPU and says why', async () => {
      const { result, summary } = await replayAt(
        session.browser.context,
        `${session.server.url}index.html#preset=tiny&backend=webgpu`
      );
      assert.equal(result.device.backend, 'cpu');
      assert.match(result.device.reason, /only a cross-origin-isolated page has: this one is not/);
      assert.ok(summary.includes(`(one worker, WebAssembly SIMD)`), summary);
      assert.ok(summary.includes(` Not on the GPU: ${result.device.reason}`), summary);
      assert.deepEqual(Object.keys(result.policies).sort(), [...result.policy_order].sort());
    });

    test('no errors on any page', () => session.checkPages(2));
  }
);

describe(`without WebGPU (${ENGINE === 'chromium' ? 'Chromium without the flag' : 'Firefox'})`, () => {
  const session = pageSession();

  test('backend=webgpu runs the lab on the CPU and says why', async () => {
    const { page } = await session.openPage(`${session.server.url}${LINK}`);
    const result = await waitForResult(page, RUN_MS);
    assertCpuFallback(result, await page.textContent('#phase'));
    assert.equal(await page.$$eval('#chapter-rows .rows-gain', (svgs) => svgs.length), 0, 'no GPU curve');
    assert.match(page.url(), /[#&]backend=webgpu(&|$)/, 'the link still asks for the GPU');
    assert.match(await page.textContent('#env-list'), /GPU \(WebGPU\)\s*not available: \S/);
  });

  test(
    'a replay with backend=webgpu on an isolated page runs on the CPU and gives the GPU’s reason',
    chromiumOnly('the same detection as the lab’s above, which gives Firefox’s reason there'),
    () =>
      withIsolatedServer(async (index) => {
        const { result, summary } = await replayAt(session.browser.context, `${index}#preset=tiny&backend=webgpu`);
        assert.equal(result.device.backend, 'cpu');
        assert.match(
          result.device.reason,
          ENGINE === 'chromium' ? /offers no adapter/ : /does not offer WebGPU|offers no adapter/
        );
        assert.ok(summary.includes(` Not on the GPU: ${result.device.reason}`), summary);
      })
  );

  test('no errors on any page', () => session.checkPages(1));
});
