// Browser tests of the played-back chapters: the queue (chapter 4) and the memory
// (chapter 5), mounted on the page and fed by the lab's and the Memory section's results. What is
// drawn is read from the panels' data attributes (never from pixels) and checked against what the
// result's timelines say, computed here from the result itself.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENGINE, POLICY_ORDER, SMALL_LAB, chromiumOnly, pageSession, shot, waitForResult } from './helpers.mjs';

const session = pageSession();
const { openPage } = session;
const SMALL_MEMORY = 'preset=tiny&runs=1&requests=200&kv=256&mem_rate=100000';

// Every admission, first token and finish of the given queue timelines, sorted and distinct.
function eventTimes(timelines, extra = []) {
  const all = [];
  for (const q of timelines) all.push(...q.stints.start_ms, ...q.requests.first_token_ms, ...q.requests.finish_ms);
  for (const list of extra) all.push(...list);
  return [...new Set(all)].sort((a, b) => a - b);
}

// The seats the timeline has held at t (a request in a slot, or a finished one still holding it), and
// of those the idle ones (padding).
function seatsAt(q, t) {
  const held = [];
  const idle = [];
  q.stints.request.forEach((_, i) => {
    if (q.stints.start_ms[i] <= t && t < q.stints.held_until_ms[i]) {
      held.push(q.stints.slot[i]);
      if (q.stints.end_ms[i] <= t) idle.push(q.stints.slot[i]);
    }
  });
  const sorted = (list) => list.sort((a, b) => a - b).join(',');
  return { held: sorted(held), idle: sorted(idle) };
}

const chapterT = (page, id) => page.$eval(`#${id} .chapter`, (el) => Number(el.dataset.tMs));
const playing = (page, id) => page.$eval(`#${id} .chapter`, (el) => el.dataset.playing === 'true');

async function seek(page, id, t) {
  await page.$eval(
    `#${id} .pb-scrub`,
    (input, value) => {
      input.value = String(value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    t
  );
  return chapterT(page, id);
}

async function panelData(page, id) {
  return page.$$eval(`#${id} figure[data-policy]`, (figures) =>
    Object.fromEntries(figures.map((f) => [f.dataset.policy, { ...f.dataset }]))
  );
}

async function openQueue(url) {
  const opened = await openPage(url);
  const result = await waitForResult(opened.page);
  await opened.page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
  return { ...opened, result };
}

describe('the queue chapter', { timeout: 120000 }, () => {
  test(
    'the caption follows playback; the live region is never left at 0 ms after a run',
    chromiumOnly('the page’s own words on its own clock; Firefox runs the layout test below'),
    async () => {
      const { page } = await openQueue(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
      const id = 'chapter-queue';
      // After the run: the caption shows 0 ms, but the live region says what landed, not "At 0 ms".
      assert.match(await page.textContent(`#${id} .pb-caption`), /^At 0 ms/);
      assert.doesNotMatch(await page.textContent('#story-announce'), /^At 0 ms/);
      assert.equal(await page.isEnabled(`#${id} .pb-back`), false, '◀ Step at 0 ms');
      await page.click(`#${id} .pb-play`);
      await page.waitForFunction(
        (sel) => !/^At 0 ms/.test(document.querySelector(sel).textContent),
        `#${id} .pb-caption`,
        { timeout: 10000, polling: 100 }
      );
      // While it plays the live region keeps quiet; a pause says where the clock stopped.
      await page.click(`#${id} .pb-play`);
      assert.equal(await page.isEnabled(`#${id} .pb-back`), true);
      const caption = await page.textContent(`#${id} .pb-caption`);
      assert.equal(await page.textContent('#story-announce'), caption);
    }
  );

  test('at 390 px the controls sit above the panels and stay in view while they scroll; the keys are shown', async () => {
    const { page } = await openQueue(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    await page.setViewportSize({ width: 390, height: 800 });
    const id = 'chapter-queue';
    assert.equal(
      await page.$eval(
        `#${id} .playback`,
        (bar, sel) =>
          Boolean(bar.compareDocumentPosition(document.querySelector(sel)) & Node.DOCUMENT_POSITION_FOLLOWING),
        `#${id} .played-panels`
      ),
      true,
      'the controls come before the panels'
    );
    assert.equal(await page.textContent(`#${id} .pb-keys`), 'Keys: space plays or pauses, ← and → step one event.');
    assert.equal(await page.isVisible(`#${id} .pb-keys`), true);
    // Scrolled to the last panel (one column at 390 px), the controls are still on screen, at its top.
    const seen = await page.$eval(`#${id}`, (chapter) => {
      const panels = chapter.querySelectorAll('.played-panel');
      panels[panels.length - 1].scrollIntoView({ block: 'end' });
      const bar = chapter.querySelector('.playback').getBoundingClientRect();
      const first = panels[0].getBoundingClientRect();
      return { barTop: bar.top, barBottom: bar.bottom, height: window.innerHeight, firstTop: first.top };
    });
    assert.ok(seen.firstTop < 0, `the first panel scrolled away (${seen.firstTop})`);
    assert.ok(seen.barTop >= 0 && seen.barBottom <= seen.height, `the controls at ${seen.barTop}–${seen.barBottom}`);
    await shot(page, 'playback-390-sticky.png', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test(
    'plays, pauses, steps one event, and the scrubber shows the timeline’s seats',
    chromiumOnly('the Firefox adapter has no page.focus'),
    async () => {
      const { page, result } = await openQueue(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
      const id = 'chapter-queue';
      const timelines = POLICY_ORDER.map((p) => result.policies[p].queue_timeline);
      for (const q of timelines) assert.equal(q.requests.finish_ms.length, 40);
      const figures = await panelData(page, id);
      assert.deepEqual(Object.keys(figures), POLICY_ORDER);
      const events = eventTimes(timelines);
      assert.equal(await page.$eval(`#${id} .chapter`, (el) => Number(el.dataset.events)), events.length);

      // Every control has a name.
      const unnamed = await page.$$eval(
        `#${id} .playback button, #${id} .playback select, #${id} .playback input`,
        (controls) =>
          controls
            .filter((c) => !(c.getAttribute('aria-label') || (c.labels && c.labels.length)))
            .map((c) => c.className)
      );
      assert.deepEqual(unnamed, []);

      // Playing advances the clock; pausing stops it.
      assert.equal(await chapterT(page, id), 0);
      await page.click(`#${id} .pb-play`);
      await page.waitForFunction(() => Number(document.querySelector('#chapter-queue .chapter').dataset.tMs) > 0);
      assert.equal(await playing(page, id), true);
      await page.click(`#${id} .pb-play`);
      const paused = await chapterT(page, id);
      assert.equal(await playing(page, id), false);
      await page.waitForTimeout(300);
      assert.equal(await chapterT(page, id), paused);

      // One step forward goes to exactly the next event, one back to the one before; the caption says it.
      const t0 = await seek(page, id, (events[10] + events[11]) / 2);
      await page.click(`#${id} .pb-next`);
      assert.equal(
        await chapterT(page, id),
        events.find((t) => t > t0)
      );
      assert.match(await page.textContent(`#${id} .pb-caption`), /^At .*(seated|first token|finished)/);
      await page.click(`#${id} .pb-back`);
      assert.equal(
        await chapterT(page, id),
        [...events].reverse().find((t) => t < t0)
      );
      await page.click(`#${id} .pb-back`);
      assert.equal(await chapterT(page, id), events[9]);

      // Scrubbed to t, the seats drawn as held are those the timeline has in a slot at t, padding included.
      const staticQ = result.policies['static:16'].queue_timeline;
      let sawPadding = false;
      for (const share of [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]) {
        const t = await seek(page, id, share * Math.max(...staticQ.requests.finish_ms) + 0.001);
        const drawn = await panelData(page, id);
        for (const p of POLICY_ORDER) {
          const expected = seatsAt(result.policies[p].queue_timeline, t);
          assert.equal(drawn[p].occupied, expected.held, `${p} seats at t = ${t}`);
          assert.equal(drawn[p].idle, expected.idle, `${p} idle seats at t = ${t}`);
          const q = result.policies[p].queue_timeline;
          assert.equal(Number(drawn[p].done), q.requests.finish_ms.filter((f) => f <= t).length, `${p} done at ${t}`);
          assert.equal(
            Number(drawn[p].ttfts),
            q.requests.first_token_ms.filter((f) => f <= t).length,
            `${p} TTFTs at ${t}`
          );
        }
        assert.equal(drawn['continuous:16'].idle, '', 'continuous batching never holds a finished row');
        sawPadding ||= drawn['static:16'].idle !== '';
      }
      assert.ok(sawPadding, 'static batching showed idle padded seats at some t');

      // Keyboard, on the figure: arrows step one event, space plays and pauses.
      const t1 = await seek(page, id, (events[20] + events[21]) / 2);
      await page.focus(`#${id} .played-panels`);
      await page.keyboard.press('ArrowRight');
      assert.equal(await chapterT(page, id), events[21]);
      await page.keyboard.press('ArrowLeft');
      assert.equal(await chapterT(page, id), events[20]);
      assert.ok(events[20] < t1);
      await page.keyboard.press('Space');
      assert.equal(await playing(page, id), true);
      await page.keyboard.press('Space');
      assert.equal(await playing(page, id), false);
      // Space on a focused control plays or pauses too, and does not press the control.
      await page.focus(`#${id} .pb-next`);
      const before = await chapterT(page, id);
      await page.keyboard.press('Space');
      assert.equal(await playing(page, id), true);
      await page.keyboard.press('Space');
      assert.equal(await playing(page, id), false);
      assert.ok((await chapterT(page, id)) >= before);

      await seek(page, id, 0.3 * Math.max(...staticQ.requests.finish_ms));
      await shot(page, 'chapter-queue-1280.png', {
        fullPage: true,
        clip: await page.$eval(`#${id}`, (el) => {
          const r = el.getBoundingClientRect();
          return { x: 0, y: r.top + window.scrollY, width: window.innerWidth, height: r.height };
        }),
      });
    }
  );

  test(
    'with reduced motion nothing animates and Play steps one event',
    chromiumOnly('the Firefox adapter has no emulateMedia'),
    async () => {
      const { page } = await openPage('about:blank');
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.goto(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
      const result = await waitForResult(page);
      await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
      const id = 'chapter-queue';
      const events = eventTimes(POLICY_ORDER.map((p) => result.policies[p].queue_timeline));
      assert.equal(await page.$eval(`#${id} .chapter`, (el) => el.dataset.reducedMotion), 'true');
      assert.match(await page.getAttribute(`#${id} .pb-play`, 'aria-label'), /reduced motion/);
      // Play takes one step and stays still: no animation runs.
      await page.click(`#${id} .pb-play`);
      const first = events.find((t) => t > 0);
      assert.equal(await chapterT(page, id), first);
      assert.equal(await playing(page, id), false);
      await page.waitForTimeout(300);
      assert.equal(await chapterT(page, id), first);
      // The keys step too.
      await page.focus(`#${id} .played-panels`);
      await page.keyboard.press('Space');
      assert.equal(
        await chapterT(page, id),
        events.find((t) => t > first)
      );
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowLeft');
      assert.equal(
        await chapterT(page, id),
        events.find((t) => t > first)
      );
      assert.equal(await playing(page, id), false);
    }
  );
});

describe('the memory chapter', { timeout: 180000 }, () => {
  test(
    'plays reserve against paged: blocks held and preemptions as the timeline has them',
    chromiumOnly('the Firefox adapter takes no screenshot clip'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_MEMORY}&autorun`);
      await waitForResult(page);
      await page.waitForFunction(() => window.kvlabMemoryResult !== undefined, null, { timeout: 120000, polling: 100 });
      await page.waitForSelector('#chapter-memory .chapter[data-ready="true"]');
      const plan = await page.evaluate(() => window.kvlabMemoryResult);
      const id = 'chapter-memory';
      const shown = ['reserve:16', 'paged:16'];
      assert.deepEqual(Object.keys(await panelData(page, id)), shown);
      const memory = Object.fromEntries(shown.map((p) => [p, plan.results[p].memory_timeline]));
      assert.equal(memory['paged:16'].budget_blocks, 16);
      const heldAt = (m, t) => {
        let held = 0;
        m.t_ms.forEach((at, i) => {
          if (at <= t) held = m.held_blocks[i];
        });
        return held;
      };
      const end = Math.max(...shown.map((p) => Math.max(...plan.results[p].queue_timeline.requests.finish_ms)));
      for (const share of [0.1, 0.3, 0.5, 0.7, 0.9]) {
        const t = await seek(page, id, share * end + 0.001);
        const drawn = await panelData(page, id);
        for (const p of shown) {
          assert.equal(Number(drawn[p].held), heldAt(memory[p], t), `${p} blocks held at ${t}`);
          assert.ok(Number(drawn[p].held) <= 16);
          assert.equal(
            Number(drawn[p].preemptions),
            memory[p].preemptions.t_ms.filter((at) => at <= t).length,
            `${p} preemptions by ${t}`
          );
        }
      }
      // Reserve never preempts; paged does under this budget, and a step lands on the preemption.
      assert.equal(memory['reserve:16'].preemptions.t_ms.length, 0);
      const preemptions = memory['paged:16'].preemptions.t_ms;
      assert.ok(preemptions.length > 0, 'paged preempts under 16 blocks');
      const events = eventTimes(
        shown.map((p) => plan.results[p].queue_timeline),
        shown.map((p) => memory[p].preemptions.t_ms)
      );
      const before = [...events].reverse().find((t) => t < preemptions[0]);
      await seek(page, id, (before + preemptions[0]) / 2); // between events: the scrubber rounds to its own precision
      await page.click(`#${id} .pb-next`);
      assert.equal(await chapterT(page, id), preemptions[0]);
      const drawn = await panelData(page, id);
      assert.equal(drawn['paged:16'].flash, 'true');
      assert.equal(Number(drawn['paged:16'].preemptions), preemptions.filter((t) => t <= preemptions[0]).length);
      assert.match(await page.textContent(`#${id} .pb-caption`), /was just preempted/);
      await shot(page, 'chapter-memory-1280.png', {
        fullPage: true,
        clip: await page.$eval(`#${id}`, (el) => {
          const r = el.getBoundingClientRect();
          return { x: 0, y: r.top + window.scrollY, width: window.innerWidth, height: r.height };
        }),
      });
    }
  );

  test('no page logged an error', () => session.checkPages(ENGINE === 'chromium' ? 3 : 0));
});
