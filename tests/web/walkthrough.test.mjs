// Browser tests of the walkthrough (the page's first screen), its chapters alone (embed.html#chapter=NAME,
// and the standalone file from file://), and axe-core over every view. Small configurations only; no
// timing asserted (docs/page.md has the measured times).

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  AXE_SOURCE,
  ENGINE,
  SMALL_LAB,
  axeViolations,
  chromiumOnly,
  dist,
  pageSession,
  waitForResult,
} from './helpers.mjs';

// Every chapter, in order; the first three draw Part A and the step table, the last two play back the
// queue (tests/web/playback.test.mjs tests their playback).
const CHAPTERS = ['tokens', 'cache', 'rows', 'queue', 'memory'];
const MEASURED = ['tokens', 'cache', 'rows'];

// Records every kvlab:figure event and every part of the result the walkthrough was given, in order.
const recordFigures = () => {
  window.__figures = [];
  window.__order = [];
  document.addEventListener('kvlab:figure', (event) => {
    window.__figures.push(event.detail);
    window.__order.push(`figure:${event.detail.chapter}`);
  });
  document.addEventListener('kvlab:result', () => window.__order.push('result'));
};

const session = pageSession({ preparePage: (page) => page.addInitScript(recordFigures) });
const { openPage } = session;

async function waitForFigures(page, names, timeout = 60000) {
  await page.waitForFunction((wanted) => wanted.every((n) => window.__figures.some((f) => f.chapter === n)), names, {
    timeout,
    polling: 50,
  });
  return page.evaluate(() => window.__figures);
}

const dataValue = (page, selector) => page.$eval(selector, (el) => Number(el.dataset.value));

describe('the walkthrough', { timeout: 180000 }, () => {
  test('is the first screen, and each chapter fills in from this run’s figures', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    // The walkthrough comes before the lab bench.
    const [storyTop, benchTop] = await page.evaluate(() =>
      ['#walkthrough', '#bench'].map((s) => document.querySelector(s).getBoundingClientRect().top)
    );
    assert.ok(storyTop < benchTop);
    const figures = await waitForFigures(page, CHAPTERS);
    const result = await waitForResult(page);
    // The first three land before the whole result, the queue with it, the memory after its own run.
    const landed = (name) => order.indexOf(`figure:${name}`);
    for (const f of figures) assert.ok(Number.isFinite(f.elapsed_ms) && f.elapsed_ms >= 0, JSON.stringify(f));
    // The cache figure landed before the whole result (the run posts Part A first).
    const order = await page.evaluate(() => window.__order);
    for (const name of MEASURED) assert.ok(landed(name) < order.indexOf('result'), order.join(', '));
    assert.ok(landed('queue') > landed('rows') && landed('memory') > landed('rows'), order.join(', '));
    for (const name of ['queue', 'memory']) {
      assert.equal(await page.getAttribute(`#chapter-${name} .chapter`, 'data-ready'), 'true', name);
    }

    // 1: the rows of the triangle, from the run's P and N.
    const P = result.answer.prompt_tokens;
    const N = result.answer.answer_tokens;
    assert.equal(await dataValue(page, '#chapter-tokens [data-key="nocache_rows"]'), N * P + (N * (N - 1)) / 2);
    assert.equal(await dataValue(page, '#chapter-tokens [data-key="cache_rows"]'), P + N - 1);
    assert.equal(
      await page.$$eval('#chapter-tokens .rows-triangle', (svgs) =>
        svgs.map((s) => s.querySelectorAll('.step').length).join()
      ),
      `${N},${N}`
    );

    // 2: the race: both token lists, marked identical, with the measured times and ratio (the medians of
    // all runs, which replaced the first runs' figures).
    assert.equal(await page.getAttribute('#chapter-cache .cards', 'data-provisional'), 'false');
    assert.equal(await dataValue(page, '#chapter-cache [data-key="nocache_ms"]'), result.answer.nocache_ms.median);
    assert.equal(await dataValue(page, '#chapter-cache [data-key="cache_ms"]'), result.answer.cache_ms.median);
    assert.equal(await dataValue(page, '#chapter-cache [data-key="ratio"]'), result.answer.ratio);
    const lane = (id) =>
      page.$$eval(`#${id} .token`, (chips) =>
        chips.map((c) => ({ id: Number(c.textContent), same: c.classList.contains('same') }))
      );
    const nocache = await lane('lane-nocache');
    assert.deepEqual(
      nocache.map((c) => c.id),
      result.answer.tokens_nocache
    );
    assert.deepEqual(
      (await lane('lane-cache')).map((c) => c.id),
      result.answer.tokens_cache
    );
    assert.ok(nocache.every((c) => c.same));
    assert.equal(result.answer.token_ms_cache.length, N);
    // Token times rise within a run (a coarse clock, as Firefox's, can read 0 for the first ones).
    for (const times of [result.answer.token_ms_nocache, result.answer.token_ms_cache]) {
      assert.ok(
        times.every((t, i) => Number.isFinite(t) && t >= 0 && (i === 0 || t >= times[i - 1])),
        times.join()
      );
    }
    // The race ends with every token shown.
    await page.waitForFunction(() => document.querySelectorAll('#chapter-cache .token.pending').length === 0, null, {
      timeout: 30000,
    });

    // 3: step time and tokens/s per row count at the reference context, from the step table.
    const points = JSON.parse(await page.$eval('#chapter-rows .chapter-body', (el) => el.dataset.points));
    const { rows, contexts, ms } = result.steps.decode;
    const j = contexts.reduce((best, c, i) => (Math.abs(c - 64) < Math.abs(contexts[best] - 64) ? i : best), 0);
    assert.deepEqual(
      points.map((p) => p.rows),
      rows
    );
    points.forEach((p, i) => {
      assert.equal(p.step_ms, ms[i][j]);
      assert.ok(Number.isFinite(p.tokens_per_s) && Math.abs(p.tokens_per_s - (rows[i] * 1000) / ms[i][j]) < 1e-9);
    });
    assert.equal(await page.$$eval('#chapter-rows .rows-bars', (svgs) => svgs.length), 2);

    // The lab bench is one click away.
    await page.click('#to-bench');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'bench');
    assert.ok(await page.$eval('#bench-title', (el) => el.getBoundingClientRect().top < window.innerHeight));

    // The live region said what the chapters show.
    assert.ok((await page.textContent('#story-announce')).trim().length > 0);
  });

  test(
    'with reduced motion, pictures are drawn finished at once, and the race can be rerun from the keyboard',
    chromiumOnly('emulated reduced motion (the Firefox adapter has no emulateMedia)'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      await page.focus('#story-run');
      await page.keyboard.press('Enter');
      await waitForFigures(page, ['tokens', 'cache']);
      await page.waitForFunction(
        () => document.querySelector('#chapter-cache .cards[data-provisional="false"]'),
        null,
        { timeout: 60000 }
      );
      // No animation: nothing pending or hidden right after the figure landed.
      assert.equal(await page.$$eval('#chapter-cache .token.pending', (c) => c.length), 0);
      assert.equal(await page.$$eval('#chapter-tokens .hidden-step', (c) => c.length), 0);
      assert.match(await page.textContent('#chapter-cache .race-speed'), /reduced motion/);
      await page.focus('#chapter-cache .race-replay');
      await page.keyboard.press('Enter');
      assert.equal(await page.$$eval('#chapter-cache .token.pending', (c) => c.length), 0);
      await waitForResult(page);
    }
  );

  test(
    'axe finds no violations on the walkthrough and on the lab bench',
    chromiumOnly('theme.test.mjs runs axe on the walkthrough and the bench in Firefox, in the dark theme'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
      await waitForResult(page);
      await page.waitForFunction(() => window.kvlabMemoryResult, null, { timeout: 60000 });
      assert.deepEqual(await axeViolations(page, '#walkthrough'), [], 'walkthrough');
      assert.deepEqual(await axeViolations(page, '#bench'), [], 'lab bench');
      assert.deepEqual(await axeViolations(page), [], 'whole page');
    }
  );
});

describe('the walkthrough’s words', { timeout: 180000 }, () => {
  test('a glossary the chapters link to, “1 slot”, and no “Press Run” while the lab runs by itself', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&slots=1&autorun`);
    await page.waitForSelector('#chapter-cache .chapter-waiting');
    const waiting = await page.$$eval('.chapter-waiting', (list) => list.map((p) => p.textContent));
    assert.ok(waiting.length >= 1, 'the chapters wait for the run');
    for (const text of waiting) assert.match(text, /^When the lab runs, /);
    const result = await waitForResult(page);
    await page.waitForFunction(() => window.kvlabMemoryResult, null, { timeout: 60000 });

    const story = await page.textContent('#story-chapters');
    assert.doesNotMatch(story, /\b1 slots\b/);
    assert.match(await page.textContent('#chapter-queue'), /Continuous batching, 1 slot\b/);
    assert.match(story, /rows \(each column of the drawing “Without a cache”; the pale part was computed before\)/);
    assert.match(await page.textContent('#chapter-memory'), /% of the token space held stayed empty\./);
    // Chapter 1's axis says what it counts; chapter 4's histograms say what their axis is.
    assert.deepEqual(await page.$$eval('#chapter-tokens svg .axis-title', (l) => l.map((t) => t.textContent)), [
      'rows per token',
      'rows per token',
    ]);
    assert.deepEqual(
      await page.$$eval('#chapter-queue .played-panel canvas', (l) => l.map((c) => c.dataset.axisMiddle)),
      Array(4).fill('time to first token')
    );
    // ... on one clock (the longest TTFT of the four queues, rounded up to a tick: 1, 2, 2.5 or 5 × 10^k),
    // each counting requests up its side.
    const longestTtftMs = Math.max(
      ...Object.values(result.policies).map(({ queue_timeline: { requests } }) =>
        Math.max(...requests.first_token_ms.map((t, i) => t - requests.arrival_ms[i]))
      )
    );
    const scales = await page.$$eval('#chapter-queue .played-panel canvas', (l) =>
      l.map((c) => [Number(c.dataset.spanMs), Number(c.dataset.countMax)])
    );
    for (const [spanMs, countMax] of scales) {
      assert.equal(spanMs, scales[0][0]);
      assert.ok(spanMs >= longestTtftMs && spanMs < 2.5 * longestTtftMs, `${spanMs} for ${longestTtftMs}`);
      const mantissa = spanMs / 10 ** Math.floor(Math.log10(spanMs));
      assert.ok(
        [1, 2, 2.5, 5].some((m) => Math.abs(mantissa - m) < 1e-9),
        `${spanMs} is a tick`
      );
      assert.ok(
        Number.isInteger(countMax) && countMax >= 1 && countMax <= result.options.workload.count,
        `${countMax}`
      );
    }

    // Every chapter links its terms; each link leads to a term the glossary explains.
    const links = await page.$$eval('.chapter-terms a', (list) =>
      list.map((a) => ({ chapter: a.closest('.story-chapter').dataset.chapter, href: a.getAttribute('href') }))
    );
    assert.deepEqual([...new Set(links.map((l) => l.chapter))], CHAPTERS);
    for (const { href } of links) {
      const term = await page.$eval(href, (dt) => [dt.tagName, dt.textContent, dt.nextElementSibling.textContent]);
      assert.equal(term[0], 'DT', href);
      assert.ok(term[2].length > 40, `${href}: ${term[2]}`);
    }
    const terms = await page.$$eval('#glossary dt', (list) => list.map((dt) => dt.textContent));
    for (const word of [
      'N and P',
      'Row',
      'Slot (seat)',
      'TTFT, median and p95',
      'TP (tensor parallelism)',
      'Roofline',
    ]) {
      assert.ok(terms.includes(word), `${word} in ${terms.join(', ')}`);
    }
    assert.ok(terms.some((t) => /compute-bound/.test(t)) && terms.includes('Efficiency factors'), terms.join(', '));

    // A link opens the glossary at its term and leaves the settings in the URL alone.
    const hash = await page.evaluate(() => location.hash);
    assert.equal(await page.$eval('#glossary', (d) => d.open), false);
    await page.click('#chapter-rows .chapter-terms a[data-term="bound"]');
    assert.equal(await page.$eval('#glossary', (d) => d.open), true);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'term-bound');
    assert.equal(await page.evaluate(() => location.hash), hash);
    assert.equal(await page.$eval('#hash-message', (el) => el.hidden), true);
  });

  test('a compact queue embed at 390 px: each histogram’s axis words fit, shortened where they must', async () => {
    const { page } = await openPage(`${session.server.url}embed.html#chapter=queue&compact&${SMALL_LAB}&autorun`);
    await page.setViewportSize({ width: 390, height: 900 });
    await waitForResult(page);
    await page.waitForSelector('#chapter-queue .played-panel canvas[data-axis-middle]');
    // Which wording fits depends on the axis's right-hand label, the measured span ("818 ms" leaves less
    // room than "1.2 s"), so the test checks the rule: the longest wording that fits the room, in the
    // axis's font (web/src/chapters/canvas.js).
    const axes = await page.$$eval('#chapter-queue .played-panel canvas', (list) => {
      const g = document.createElement('canvas').getContext('2d');
      g.font = '10px system-ui, sans-serif';
      return list.map((c) => ({
        says: c.dataset.axisMiddle,
        roomPx: Number(c.dataset.axisRoomPx),
        widthsPx: Object.fromEntries(['time to first token', 'TTFT'].map((w) => [w, g.measureText(w).width])),
      }));
    });
    assert.equal(axes.length, 4);
    for (const axis of axes) {
      const said = JSON.stringify(axis);
      assert.ok(axis.says !== '', `at 390 px every histogram names its axis: ${said}`);
      assert.ok(axis.widthsPx[axis.says] <= axis.roomPx, `the words fit: ${said}`);
      if (axis.says === 'TTFT')
        assert.ok(
          axis.widthsPx['time to first token'] > axis.roomPx,
          `shortened only when the long words do not fit: ${said}`
        );
    }
  });
});

describe('one chapter alone', { timeout: 180000 }, () => {
  // A blog post's page with the chapter in an iframe, recording what the frame posts.
  const host = (src) => `<!doctype html><html lang="en"><head><title>host</title></head><body>
    <iframe id="kvlab" title="kvlab chapter" src="${src}" style="width:100%;border:0"></iframe>
    <script>
      window.__messages = [];
      window.addEventListener('message', (event) => {
        window.__messages.push(event.data);
        if (event.data && event.data.type === 'kvlab:height') document.getElementById('kvlab').style.height = event.data.height + 'px';
      });
    </script></body></html>`;

  for (const name of CHAPTERS) {
    test(
      `embed.html#chapter=${name} autoruns, shows just that chapter, posts its height and its figure`,
      chromiumOnly(
        'a host page served by request interception (the Firefox adapter has no route); the chapter view itself runs in Firefox from file://'
      ),
      async () => {
        // The host page is served at the server's origin (Chromium will not frame the local server from about:blank).
        const hostUrl = `${session.server.url}host-${name}.html`;
        const { page } = await openPage('about:blank');
        await page.route(hostUrl, (route) =>
          route.fulfill({ contentType: 'text/html', body: host(`embed.html#chapter=${name}&${SMALL_LAB}&autorun`) })
        );
        await page.goto(hostUrl);
        await page.waitForFunction(
          (n) => window.__messages.some((m) => m && m.type === 'kvlab:figure' && m.chapter === n),
          name,
          { timeout: 60000, polling: 50 }
        );
        const messages = await page.evaluate(() => window.__messages);
        const heights = messages.filter((m) => m.type === 'kvlab:height').map((m) => m.height);
        assert.ok(
          heights.length > 0 && heights.every((v) => Number.isFinite(v) && v > 0),
          `heights ${heights.join(', ')}`
        );
        const figure = messages.find((m) => m.type === 'kvlab:figure' && m.chapter === name);
        assert.ok(Number.isFinite(figure.elapsed_ms) && figure.elapsed_ms >= 0);

        const frame = page.frames().find((f) => f.url().includes('embed.html'));
        const visible = await frame.$$eval('section.story-chapter', (sections) =>
          sections.filter((s) => s.getBoundingClientRect().height > 0).map((s) => s.dataset.chapter)
        );
        assert.deepEqual(visible, [name]);
        for (const hidden of ['#bench', 'header.site']) {
          assert.equal(
            await frame.$eval(hidden, (el) => el.getBoundingClientRect().height),
            0,
            `${hidden} shown in the chapter view`
          );
        }
        // The figure is from the run: a finite number in the chapter, or the playback ready.
        if (MEASURED.includes(name)) {
          const values = await frame.$$eval(`#chapter-${name} .figure-value`, (els) =>
            els.map((el) => Number(el.dataset.value))
          );
          assert.ok(values.length > 0 && values.every(Number.isFinite), values.join());
        } else {
          assert.equal(await frame.getAttribute(`#chapter-${name} .chapter`, 'data-ready'), 'true');
          assert.ok(Number(await frame.getAttribute(`#chapter-${name} .chapter`, 'data-events')) > 0);
        }
        // The iframe was sized from the last posted height. The chapter may still grow after its figure
        // (a new height is then posted), so wait for the frame to match the latest one rather than the one
        // read above.
        await page.waitForFunction(
          () => {
            const posted = window.__messages.filter((m) => m && m.type === 'kvlab:height');
            const frameHeight = document.getElementById('kvlab').getBoundingClientRect().height;
            return posted.length > 0 && Math.round(frameHeight) === posted[posted.length - 1].height;
          },
          null,
          { timeout: 10000, polling: 50 }
        );

        // axe, inside the frame (the chapter's own document).
        await frame.evaluate(AXE_SOURCE);
        const violations = await frame.evaluate(async () =>
          (await window.axe.run(document, { resultTypes: ['violations'] })).violations.map(
            (v) =>
              `${v.id}: ${v.help} (${v.nodes
                .slice(0, 3)
                .map((n) => n.target.join(' '))
                .join('; ')})`
          )
        );
        assert.deepEqual(violations, [], `chapter ${name}`);
      }
    );
  }

  test('the standalone file shows a chapter alone from file://', async () => {
    const url = `${pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href}#chapter=cache&${SMALL_LAB}&autorun`;
    const { page, log } = await openPage(url);
    const figures = await waitForFigures(page, ['cache']);
    assert.ok(figures.find((f) => f.chapter === 'cache').elapsed_ms >= 0);
    assert.equal(await page.$$eval('section.story-chapter', (s) => s.map((x) => x.dataset.chapter).join()), 'cache');
    assert.equal(await dataValue(page, '#chapter-cache [data-key="ratio"]'), (await waitForResult(page)).answer.ratio);
    assert.deepEqual(
      log.requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')),
      []
    );
  });

  test('a link to an unknown chapter shows the whole walkthrough and says why', async () => {
    const { page } = await openPage(`${session.server.url}index.html#chapter=%3Cb%3Enope%3C%2Fb%3E&${SMALL_LAB}`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    assert.match(
      await page.textContent('#story-message'),
      /chapter “<b>nope<\/b>”; chapters: tokens, cache, rows, queue, memory/
    );
    assert.equal(await page.$$eval('section.story-chapter', (s) => s.length), CHAPTERS.length);
    assert.equal(await page.isVisible('#hash-message'), false);
  });
});

describe('every walkthrough page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages(ENGINE === 'chromium' ? 8 : 5); // Firefox skips reduced motion, axe on light, the embeds
  });
});
