// Not a test: how long the page takes from opening a link to the first token of chapter 2's race, and
// what it fetched on the way, for the default random-weight model and for stories15M (docs/results.md
// keeps the figures; docs/real-model.md decides the walkthrough's default model from them).
//
//   node tools/model-load.mjs [RUNS [MODEL...]]   (default 3 runs of random and stories15M; KVLAB_ENGINE=firefox
//                                                for Firefox)
//
// Each run is a fresh browser profile (nothing cached) opening index.html#[model=stories15M&]autorun,
// at the lab's default settings otherwise. Bytes: the sizes of the files the server sent.

import fs from 'node:fs';
import path from 'node:path';
import { ENGINE, dist, requireDist, startBrowser, startServer, watchedPage } from '../tests/web/helpers.mjs';

const RUNS = Number(process.argv[2] || 3);
const CHOSEN = process.argv.slice(3);
const MODELS = (CHOSEN.length ? CHOSEN : ['random', 'stories15M']).map((name) => [
  name,
  name === 'random' ? '' : `model=${name}&`,
]);

// In the page: the time (ms since navigation) at which the first token of the race is shown.
const watchFirstToken = () => {
  const poll = () => {
    const shown = document.querySelector('#chapter-cache ol.tokens li.token:not(.pending)');
    if (shown) window.__firstTokenMs = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
};

requireDist();
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
for (const [label, hash] of MODELS) {
  const times = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const served = [];
    const server = await startServer(dist, (line) => served.push(line.split(' ')[1]));
    const browser = await startBrowser();
    try {
      const { page } = await watchedPage(browser.context);
      await page.addInitScript(watchFirstToken);
      await page.goto(`${server.url}index.html#${hash}autorun`);
      await page.waitForFunction(() => window.__firstTokenMs !== undefined, null, { timeout: 300000, polling: 100 });
      times.push(await page.evaluate(() => window.__firstTokenMs));
      // Sizes of what was sent (the worker's fetches included), each file once.
      bytes = [...new Set(served)]
        .map((url) => path.join(dist, decodeURIComponent(url.split('?')[0])))
        .filter((file) => fs.existsSync(file) && fs.statSync(file).isFile())
        .reduce((sum, file) => sum + fs.statSync(file).size, 0);
    } finally {
      await browser.close();
      await server.close();
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `${ENGINE}, ${label}: ${mb(bytes)} fetched; first token ${times.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} after opening the link (median ${(times[Math.floor(times.length / 2)] / 1000).toFixed(2)} s)`
  );
}
