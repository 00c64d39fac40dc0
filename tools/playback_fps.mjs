// Measures the queue chapter's playback: frames per second and the longest long task on
// the main thread while 16 slots x 1,000 requests play, at 1280 px and at 390 px, in headless
// Debian chromium. A measurement, not a test (nothing is asserted); the figures go in docs/page.md.
//
//   node tools/playback_fps.mjs [--seconds 6] [--shots]   (needs dist/: scripts/build)
//
// Drives the page with the tiny model (the step times do not change what is drawn: 1,000 requests,
// 16 slots) and, with --shots, saves screenshots of the queue and memory chapters in build/screenshots.

import { parseArgs } from 'node:util';
import { shot, startBrowser, startServer } from '../tests/web/helpers.mjs';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '6' }, shots: { type: 'boolean', default: false } },
});
const seconds = Number(values.seconds);
const HASH = 'preset=tiny&runs=1&requests=1000&kv=2048&mem_rate=auto&autorun';
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

const server = await startServer();
const browser = await startBrowser();
try {
  for (const viewport of VIEWPORTS) {
    const page = await browser.context.newPage();
    await page.setViewportSize(viewport);
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: false });
    });
    await page.goto(`${server.url}index.html#${HASH}`);
    await page.waitForFunction(() => window.kvlabMemoryResult !== undefined, null, { timeout: 300000, polling: 250 });
    await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
    await page.waitForSelector('#chapter-memory .chapter[data-ready="true"]');
    const requests = await page.evaluate(
      () => window.kvlabResult.policies['continuous:16'].queue_timeline.requests.finish_ms.length
    );
    // 'idle': the same count with nothing playing, the baseline of this (shared, loaded) machine.
    for (const id of ['idle', 'chapter-queue', 'chapter-memory']) {
      await page.$eval(`#${id === 'idle' ? 'chapter-queue' : id}`, (el) => el.scrollIntoView());
      await page.waitForTimeout(500);
      await page.evaluate(() => {
        window.__longTasks = [];
      });
      const figures = await page.evaluate(
        async ({ chapterId, ms }) => {
          const idle = chapterId === 'idle';
          const root = document.querySelector(`#${idle ? 'chapter-queue' : chapterId} .chapter`);
          if (!idle) root.querySelector('.pb-play').click();
          let frames = 0;
          let longestFrame = 0;
          let last = performance.now();
          const start = last;
          await new Promise((resolve) => {
            const tick = (now) => {
              frames += 1;
              longestFrame = Math.max(longestFrame, now - last);
              last = now;
              if (now - start < ms && (idle || root.dataset.playing === 'true')) requestAnimationFrame(tick);
              else resolve();
            };
            requestAnimationFrame(tick);
          });
          const elapsed = performance.now() - start;
          const t = Number(root.dataset.tMs);
          if (root.dataset.playing === 'true') root.querySelector('.pb-play').click();
          return {
            fps: (frames / elapsed) * 1000,
            longest_frame_ms: longestFrame,
            elapsed_ms: elapsed,
            simulated_ms: t,
          };
        },
        { chapterId: id, ms: seconds * 1000 }
      );
      const longTasks = await page.evaluate(() => window.__longTasks);
      console.log(
        JSON.stringify({
          viewport: `${viewport.width}x${viewport.height}`,
          chapter: id,
          requests,
          fps: Number(figures.fps.toFixed(1)),
          longest_frame_ms: Number(figures.longest_frame_ms.toFixed(1)),
          played_s: Number((figures.elapsed_ms / 1000).toFixed(2)),
          simulated_s: Number((figures.simulated_ms / 1000).toFixed(2)),
          long_tasks: longTasks.length,
          longest_long_task_ms: longTasks.length ? Math.max(...longTasks) : 0,
        })
      );
      if (values.shots && id !== 'idle') {
        const clip = await page.$eval(`#${id}`, (el) => {
          const r = el.getBoundingClientRect();
          return { x: 0, y: r.top + window.scrollY, width: window.innerWidth, height: r.height };
        });
        await shot(page, `${id}-${viewport.width}.png`, { fullPage: true, clip });
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
