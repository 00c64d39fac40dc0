// Not a test: opens the walkthrough at its DEFAULT settings in headless chromium, presses Run, and
// prints when each chapter's figure landed (the kvlab:figure events, ms since Run) and how long the whole
// lab took; then saves a screenshot of every chapter alone (embed.html#chapter=NAME, which runs the
// default lab too) at 1280 px and 390 px (what docs/screenshots/chapter-*.png hold); the queue and
// memory chapters part way into their playback. Then the queue and memory chapters with the hardware
// switch on a GPU preset (chapter-NAME-GPU-*.png: modeled, no lab run needed).
//
//   node tools/walkthrough-shots.mjs [OUT_DIR] [--runs N] [--gpu NAME] [--modeled-only]
//   (default: build/screenshots/walkthrough; 1 run; h100-sxm; --modeled-only: the GPU shots alone)
//
// Needs a built dist/ (scripts/build). A few minutes: one default lab per chapter and width.

import fs from 'node:fs';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer, waitForResult, watchedPage } from '../tests/web/helpers.mjs';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 1;
const gpuAt = args.indexOf('--gpu');
const gpu = gpuAt >= 0 ? args.splice(gpuAt, 2)[1] : 'h100-sxm';
const modeledOnly = args.includes('--modeled-only');
if (modeledOnly) args.splice(args.indexOf('--modeled-only'), 1);
const out = path.resolve(args[0] || path.join(root, 'build', 'screenshots', 'walkthrough'));
fs.mkdirSync(out, { recursive: true });
requireDist();

const record = () => {
  window.__figures = [];
  document.addEventListener('kvlab:figure', (event) => window.__figures.push(event.detail));
};
const chaptersOf = (page) => page.$$eval('section.story-chapter', (sections) => sections.map((s) => s.dataset.chapter));

// The queue and memory chapters alone with the switch on `gpu`, at both widths.
async function modeledShots(browser, server) {
  for (const name of ['queue', 'memory']) {
    for (const [label, width] of [
      ['desktop', 1280],
      ['phone', 390],
    ]) {
      const { page, log } = await watchedPage(browser.context);
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.url}embed.html#chapter=${name}`);
      await page.waitForFunction((n) => document.querySelectorAll(`#${n}-hw-gpu option`).length > 1, name, {
        timeout: 60000,
        polling: 100,
      });
      await page.selectOption(`#${name}-hw-gpu`, gpu);
      await page.waitForFunction(() => window.kvlabHardwareResult !== undefined, null, {
        timeout: 120000,
        polling: 100,
      });
      await page.waitForTimeout(4000);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await page.screenshot({ path: path.join(out, `chapter-${name}-${gpu}-${label}.png`), fullPage: true });
      console.log(
        `chapter ${name} on ${gpu} (modeled) at ${width} px: ${overflow > 0 ? `${overflow} px too wide` : 'fits'}${log.errors.length ? `; errors: ${log.errors.join('; ')}` : ''}`
      );
      await page.close();
    }
  }
}

const server = await startServer();
const browser = await startBrowser();
try {
  if (modeledOnly) {
    await modeledShots(browser, server);
  } else {
    await measuredShots(browser, server);
    await modeledShots(browser, server);
  }
} finally {
  await browser.close();
  await server.close();
}

async function measuredShots(browser, server) {
  // Time to each figure, pressing Run once the module is ready (as a reader would).
  for (let run = 1; run <= runs; run += 1) {
    const { page, log } = await watchedPage(browser.context);
    await page.addInitScript(record);
    await page.goto(`${server.url}index.html`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 60000 });
    await page.click('#story-run');
    const result = await waitForResult(page, 180000);
    const names = await chaptersOf(page);
    await page.waitForFunction(
      (n) => n.every((c) => ['queue', 'memory'].includes(c) || window.__figures.some((f) => f.chapter === c)),
      names,
      { timeout: 60000 }
    );
    const figures = await page.evaluate(() => window.__figures);
    console.log(
      `run ${run}: ${figures.map((f) => `${f.chapter} ${(f.elapsed_ms / 1000).toFixed(2)} s`).join(', ')}; whole lab ${(result.elapsed_ms / 1000).toFixed(2)} s in the worker` +
        ` (Part A ${result.answer.nocache_ms.median.toFixed(1)} ms vs ${result.answer.cache_ms.median.toFixed(1)} ms, ${result.answer.ratio.toFixed(1)}x)`
    );
    if (run === 1) {
      await page.waitForTimeout(7000); // the race and the triangle finish drawing
      await page.screenshot({ path: path.join(out, 'walkthrough-desktop.png'), fullPage: false });
    }
    if (log.errors.length) console.log(`  errors: ${log.errors.join('; ')}`);
    await page.close();
  }

  // Every chapter alone, at both widths.
  const { page: probe } = await watchedPage(browser.context);
  await probe.goto(`${server.url}index.html`);
  const names = await chaptersOf(probe);
  await probe.close();
  for (const name of names) {
    for (const [label, width] of [
      ['desktop', 1280],
      ['phone', 390],
    ]) {
      const { page, log } = await watchedPage(browser.context);
      await page.addInitScript(record);
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.url}embed.html#chapter=${name}&autorun`);
      await page.waitForFunction((n) => window.__figures.some((f) => f.chapter === n), name, {
        timeout: 180000,
        polling: 100,
      });
      await page.waitForTimeout(7000);
      // A played chapter is shown a third of the way into its clock, or at 100 s if sooner: the queue's
      // clock runs until the uncached server ends (about 9,000 s), the batched ones end near 200-300 s.
      await page.$$eval('.pb-scrub', (inputs) =>
        inputs.forEach((input) => {
          input.value = String(Math.min(Number(input.max) / 3, 100000));
          input.dispatchEvent(new Event('input', { bubbles: true }));
        })
      );
      await page.waitForTimeout(500);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await page.screenshot({ path: path.join(out, `chapter-${name}-${label}.png`), fullPage: true });
      console.log(
        `chapter ${name} at ${width} px: ${overflow > 0 ? `${overflow} px too wide` : 'fits'}${log.errors.length ? `; errors: ${log.errors.join('; ')}` : ''}`
      );
      await page.close();
    }
  }
}
