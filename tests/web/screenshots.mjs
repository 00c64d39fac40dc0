// Not a test: runs the page at its DEFAULT settings in headless chromium, prints how long the run took
// and saves full-page screenshots at desktop and phone width (what docs/screenshots/ holds).
//
//   node tests/web/screenshots.mjs [OUT_DIR]      (default: build/screenshots/default)
//
// Needs a built dist/ (scripts/build). Takes about as long as two default runs.

import fs from 'node:fs';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer, waitForResult, watchedPage } from './helpers.mjs';

const out = path.resolve(process.argv[2] || path.join(root, 'build', 'screenshots', 'default'));
fs.mkdirSync(out, { recursive: true });
requireDist();
const server = await startServer();
const browser = await startBrowser();
try {
  for (const [name, width] of [['desktop', 1280], ['phone', 375]]) {
    const { page, log } = await watchedPage(browser.context);
    await page.setViewportSize({ width, height: 900 });
    const started = Date.now();
    await page.goto(`${server.url}index.html#autorun`);
    const result = await waitForResult(page, 120000);
    const wall = (Date.now() - started) / 1000;
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
    const c = result.policies['continuous:16'];
    console.log(`${name} (${width}px): run ${(result.elapsed_ms / 1000).toFixed(1)} s in the worker, ${wall.toFixed(1)} s from page load; ` +
      `Part A ${result.answer.nocache_ms.median.toFixed(1)} ms vs ${result.answer.cache_ms.median.toFixed(1)} ms (${result.answer.ratio.toFixed(1)}x); ` +
      `continuous:16 median TTFT ${(c.median_ttft_ms / 1000).toFixed(1)} s, ${Math.round(c.tokens_per_s)} tokens/s`);
    if (log.errors.length) console.log(`  console errors: ${log.errors.join(' | ')}`);
    await page.close();
  }
  console.log(`screenshots in ${path.relative(process.cwd(), out) || '.'}`);
} finally {
  await browser.close();
  await server.close();
}
