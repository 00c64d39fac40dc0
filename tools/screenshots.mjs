// Not a test: runs the page at its DEFAULT settings in headless chromium (the lab, then the Memory
// section on its step table), then the Simulated vs real replay and the SIMD vs scalar vs JavaScript
// panel (default model), prints how long each took and what they measured, and saves full-page
// screenshots at desktop and phone width (what docs/screenshots/ holds), plus each panel alone.
//
//   node tools/screenshots.mjs [OUT_DIR]      (default: build/screenshots/default)
//
// Needs a built dist/ (scripts/build). Takes about as long as two default runs, two replays and two
// panel runs: a few minutes.

import fs from 'node:fs';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer, waitForResult, watchedPage } from '../tests/web/helpers.mjs';

const out = path.resolve(process.argv[2] || path.join(root, 'build', 'screenshots', 'default'));
fs.mkdirSync(out, { recursive: true });
requireDist();
const server = await startServer();
const browser = await startBrowser();
const f = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const pct = (fraction) =>
  Number.isFinite(fraction) ? `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%` : '–';
const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–');
try {
  for (const [name, width] of [
    ['desktop', 1280],
    ['phone', 375],
  ]) {
    const { page, log } = await watchedPage(browser.context);
    await page.setViewportSize({ width, height: 900 });
    const started = Date.now();
    await page.goto(`${server.url}index.html#autorun`);
    const result = await waitForResult(page, 120000);
    const wall = (Date.now() - started) / 1000;
    const c = result.policies['continuous:16'];
    console.log(
      `${name} (${width}px): run ${(result.elapsed_ms / 1000).toFixed(1)} s in the worker, ${wall.toFixed(1)} s from page load; ` +
        `Part A ${result.answer.nocache_ms.median.toFixed(1)} ms vs ${result.answer.cache_ms.median.toFixed(1)} ms (${result.answer.ratio.toFixed(1)}x); ` +
        `continuous:16 median TTFT ${(c.median_ttft_ms / 1000).toFixed(1)} s, ${Math.round(c.tokens_per_s)} tokens/s`
    );

    // The Memory section ran by itself on the lab's step table.
    await page.waitForFunction(() => window.kvlabMemoryResult || !document.getElementById('mem-error').hidden, null, {
      timeout: 120000,
      polling: 100,
    });
    const mem = await page.evaluate(() => window.kvlabMemoryResult);
    if (mem) {
      console.log(
        `  Memory (${mem.kv_tokens} KV tokens = ${mem.results[mem.policies[1]].kv_blocks_budget} blocks of ${mem.block_tokens}, ${f(mem.rate, 3)} requests/s${mem.rate_auto ? ' (auto)' : ''}, capacity ${f(mem.capacity_per_s)} requests/s), ${(mem.elapsed_ms / 1000).toFixed(2)} s:`
      );
      for (const name of mem.policies) {
        const p = mem.results[name];
        console.log(
          `  ${name.padEnd(16)} median TTFT ${sec(p.median_ttft_ms)}, p95 ${sec(p.p95_ttft_ms)}, all done ${sec(p.makespan_ms)}, goodput ${f(p.goodput_pct, 1)}%` +
            (p.kv_blocks_budget
              ? `, peak ${p.peak_kv_blocks}/${p.kv_blocks_budget} blocks, waste ${f(p.waste_pct, 1)}%, ${p.preemptions} preemptions, ${p.recomputed_tokens} recomputed tokens`
              : '')
        );
      }
      const crossings = await page.$$eval('#mem-crossings li', (lis) =>
        lis.map((li) => `${li.dataset.policy} ${li.dataset.crossing ? Number(li.dataset.crossing).toFixed(2) : 'none'}`)
      );
      console.log(
        `  load curve: rates ${mem.load.rates.join(', ')}; p95 TTFT crosses ${mem.ttft_target_ms} ms at: ${crossings.join(', ')}`
      );
    } else {
      console.log(`  Memory error: ${await page.textContent('#mem-error')}`);
    }

    // Simulated vs real: the default replay (64 requests, 8 slots), default model.
    await page.click('#replay-run');
    await page.waitForFunction(
      () => window.kvlabReplayResult || !document.getElementById('replay-error').hidden,
      null,
      { timeout: 300000, polling: 200 }
    );
    const rep = await page.evaluate(() => window.kvlabReplayResult);
    if (rep) {
      console.log(`  Replay (${rep.options.measure.preset}), ${(rep.elapsed_ms / 1000).toFixed(1)} s:`);
      for (const name of rep.policy_order) {
        const p = rep.policies[name];
        const drift = p.drift ? Math.max(...Object.values(p.drift).map(Math.abs)) : null;
        console.log(
          `  ${name.padEnd(15)} n=${String(p.request_count).padStart(2)}  median TTFT real ${sec(p.real.median_ttft_ms)} sim ${sec(p.sim.median_ttft_ms)} (${pct(p.error.median_ttft)}), ` +
            `p95 real ${sec(p.real.p95_ttft_ms)} sim ${sec(p.sim.p95_ttft_ms)} (${pct(p.error.p95_ttft)}), all done real ${sec(p.real.makespan_ms)} sim ${sec(p.sim.makespan_ms)} (${pct(p.error.makespan)})` +
            (drift !== null ? `, drift ±${(drift * 100).toFixed(1)}%` : '')
        );
      }
    } else {
      console.log(`  Replay error: ${await page.textContent('#replay-error')}`);
    }

    // The SIMD vs scalar vs JavaScript panel, default model.
    await page.click('#simd-run');
    await page.waitForFunction(() => window.kvlabSimdResult || !document.getElementById('simd-error').hidden, null, {
      timeout: 120000,
      polling: 100,
    });
    const s = await page.evaluate(() => window.kvlabSimdResult);
    if (s) {
      const row = (label, r) =>
        `  ${label.padEnd(20)} median ${f(r.median_ms)} ms, min ${f(r.min_ms)}, max ${f(r.max_ms)}, ${f(r.gflops)} GFLOP/s, ${f(r.gb_per_s, 1)} GB/s of weights`;
      console.log(
        `  SIMD panel (${s.model.preset}, 1 row, context ${s.context}), ${(s.elapsed_ms / 1000).toFixed(1)} s:`
      );
      console.log(row('wasm SIMD', s.rows.simd));
      console.log(row('wasm scalar', s.rows.scalar));
      console.log(row('plain JavaScript', s.rows.js));
      console.log(
        `  SIMD/scalar ${f(s.ratios.simd_vs_scalar)}x, SIMD/JS ${f(s.ratios.simd_vs_js)}x, scalar/JS ${f(s.ratios.scalar_vs_js)}x; ` +
          `read bandwidth ${f(s.read_gb_per_s, 1)} GB/s; 16 rows over 1 (tokens/s): SIMD ${f(s.ratios.rows16_vs_rows1_simd)}x, scalar ${f(s.ratios.rows16_vs_rows1_scalar)}x`
      );
    } else {
      console.log(`  SIMD panel error: ${await page.textContent('#simd-error')}`);
    }
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
    await page.locator('#simd').screenshot({ path: path.join(out, `simd-${name}.png`) });
    await page.locator('#memory').screenshot({ path: path.join(out, `memory-${name}.png`) });
    await page.locator('#replay').screenshot({ path: path.join(out, `replay-${name}.png`) });
    if (log.errors.length) console.log(`  console errors: ${log.errors.join(' | ')}`);
    await page.close();
  }
  console.log(`screenshots in ${path.relative(process.cwd(), out) || '.'}`);
} finally {
  await browser.close();
  await server.close();
}
