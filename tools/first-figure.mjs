// Not a test: how soon the first figure lands and how long the whole default lab takes, pressing Run
// once the module is ready, as a reader would (headless chromium, default settings). With --baseline
// DIR, the page built in DIR (e.g. an older dist/) runs the same lab in turn with this one, so the two
// are compared side by side on one loaded machine.
//
//   node tools/first-figure.mjs [--runs N] [--baseline DIR]     (default: 3 runs)
//
// Prints, per run: ms from the click to the cache figure (kvlab:figure) and to the whole result
// (kvlab:result), and the worker's own time for the lab.

import path from 'node:path';
import { dist, requireDist, startBrowser, waitForResult, watchedPage } from '../tests/web/helpers.mjs';
import { serve } from '../web/serve.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option('--runs', 3));
const baseline = option('--baseline', null);
requireDist();

const record = () => {
  window.__marks = {};
  document.addEventListener('kvlab:figure', (event) => {
    if (!(event.detail.chapter in window.__marks)) window.__marks[event.detail.chapter] = performance.now();
  });
  document.addEventListener('kvlab:result', () => {
    window.__marks.result = performance.now();
  });
};

async function once(browser, server, label) {
  const { page } = await watchedPage(browser.context);
  await page.addInitScript(record);
  await page.goto(`${server.url}index.html`);
  await page.waitForSelector('#lab[data-state="ready"]', { timeout: 60000 });
  const button = (await page.$('#story-run')) ? '#story-run' : '#run';
  const clicked = await page.evaluate((selector) => {
    const t = performance.now();
    document.querySelector(selector).click();
    return t;
  }, button);
  const result = await waitForResult(page, 180000);
  const marks = await page.evaluate(() => window.__marks);
  await page.close();
  const since = (t) => (Number.isFinite(t) ? `${Math.round(t - clicked)} ms` : '–');
  console.log(
    `${label}: cache figure ${since(marks.cache)}, whole result ${since(marks.result)} (worker ${Math.round(result.elapsed_ms)} ms)`
  );
  return { cache: marks.cache - clicked, result: marks.result - clicked, worker: result.elapsed_ms };
}

const median = (list) => {
  const sorted = [...list].filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};

const pages = [{ label: 'this page', server: await serve({ dir: dist, port: 0, host: '127.0.0.1' }), times: [] }];
if (baseline)
  pages.push({
    label: `baseline (${path.resolve(baseline)})`,
    server: await serve({ dir: path.resolve(baseline), port: 0, host: '127.0.0.1' }),
    times: [],
  });
const browser = await startBrowser();
try {
  for (let run = 1; run <= runs; run += 1) {
    for (const p of pages) p.times.push(await once(browser, p.server, `run ${run}, ${p.label}`));
  }
  for (const p of pages) {
    console.log(
      `${p.label}, median of ${runs}: cache figure ${Math.round(median(p.times.map((t) => t.cache)))} ms, whole result ${Math.round(median(p.times.map((t) => t.result)))} ms, worker ${Math.round(median(p.times.map((t) => t.worker)))} ms`
    );
  }
} finally {
  await browser.close();
  for (const p of pages) await p.server.close();
}
