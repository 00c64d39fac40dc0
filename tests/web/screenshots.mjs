// Not a test: runs the page at its DEFAULT settings in headless chromium, then the SIMD vs scalar vs
// JavaScript panel (default model), prints how long each took and what they measured, and saves
// full-page screenshots at desktop and phone width (what docs/screenshots/ holds), plus the panel alone.
//
//   node tests/web/screenshots.mjs [OUT_DIR]      (default: build/screenshots/default)
//
// Needs a built dist/ (scripts/build). Takes about as long as two default runs and two panel runs.

import fs from 'node:fs';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer, waitForResult, watchedPage } from './helpers.mjs';

const out = path.resolve(process.argv[2] || path.join(root, 'build', 'screenshots', 'default'));
fs.mkdirSync(out, { recursive: true });
requireDist();
const server = await startServer();
const browser = await startBrowser();
const f = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
try {
  for (const [name, width] of [['desktop', 1280], ['phone', 375]]) {
    const { page, log } = await watchedPage(browser.context);
    await page.setViewportSize({ width, height: 900 });
    const started = Date.now();
    await page.goto(`${server.url}index.html#autorun`);
    const result = await waitForResult(page, 120000);
    const wall = (Date.now() - started) / 1000;
    const c = result.policies['continuous:16'];
    console.log(`${name} (${width}px): run ${(result.elapsed_ms / 1000).toFixed(1)} s in the worker, ${wall.toFixed(1)} s from page load; ` +
      `Part A ${result.answer.nocache_ms.median.toFixed(1)} ms vs ${result.answer.cache_ms.median.toFixed(1)} ms (${result.answer.ratio.toFixed(1)}x); ` +
      `continuous:16 median TTFT ${(c.median_ttft_ms / 1000).toFixed(1)} s, ${Math.round(c.tokens_per_s)} tokens/s`);

    // The SIMD vs scalar vs JavaScript panel, default model.
    await page.click('#simd-run');
    await page.waitForFunction(() => window.kvlabSimdResult || !document.getElementById('simd-error').hidden, null, { timeout: 120000, polling: 100 });
    const s = await page.evaluate(() => window.kvlabSimdResult);
    if (s) {
      const row = (label, r) => `  ${label.padEnd(20)} median ${f(r.median_ms)} ms, min ${f(r.min_ms)}, max ${f(r.max_ms)}, ${f(r.gflops)} GFLOP/s, ${f(r.gb_per_s, 1)} GB/s of weights`;
      console.log(`  SIMD panel (${s.model.preset}, 1 row, context ${s.context}), ${(s.elapsed_ms / 1000).toFixed(1)} s:`);
      console.log(row('wasm SIMD', s.rows.simd));
      console.log(row('wasm scalar', s.rows.scalar));
      console.log(row('plain JavaScript', s.rows.js));
      console.log(`  SIMD/scalar ${f(s.ratios.simd_vs_scalar)}x, SIMD/JS ${f(s.ratios.simd_vs_js)}x, scalar/JS ${f(s.ratios.scalar_vs_js)}x; ` +
        `read bandwidth ${f(s.read_gb_per_s, 1)} GB/s; 16 rows over 1 (tokens/s): SIMD ${f(s.ratios.rows16_vs_rows1_simd)}x, scalar ${f(s.ratios.rows16_vs_rows1_scalar)}x`);
    } else {
      console.log(`  SIMD panel error: ${await page.textContent('#simd-error')}`);
    }
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
    await page.locator('#simd').screenshot({ path: path.join(out, `simd-${name}.png`) });
    if (log.errors.length) console.log(`  console errors: ${log.errors.join(' | ')}`);
    await page.close();
  }
  console.log(`screenshots in ${path.relative(process.cwd(), out) || '.'}`);
} finally {
  await browser.close();
  await server.close();
}
