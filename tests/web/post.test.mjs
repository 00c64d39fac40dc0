// Browser tests of a blog post with several chapter embeds (tests/web/fixtures/post.html, served from an
// origin of its own as a blog is): the embeds of one post share one lab run. Small configurations only;
// no timing asserted.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SMALL_LAB, chromiumOnly, dist, eventually, pageSession, root, startServer } from './helpers.mjs';

const CHAPTERS = ['tokens', 'cache', 'rows', 'queue', 'memory'];

// Tells the post, from every frame, each lab run its page asks of a worker ({type: 'run'}): the lab
// starts. (The post's origin is not the embeds', so it hears them through messages, in both engines.)
const countLabStarts = () => {
  const send = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === 'run' && window.parent !== window)
      window.parent.postMessage({ type: 'test:lab-start' }, '*');
    return send.call(this, message, ...rest);
  };
};

const session = pageSession({ preparePage: (page) => page.addInitScript(countLabStarts) });
let fixtures = null;

// The post page with these chapters, each embed with `hash`; resolves with the messages the post got
// once every embed has posted its result and its chapter's figure.
async function openPost(chapters, hash) {
  if (!fixtures) fixtures = await startServer(path.join(root, 'tests', 'web', 'fixtures'));
  const query = new URLSearchParams({ base: session.server.url, chapters: chapters.join(','), hash });
  const watched = await session.openPage(`${fixtures.url}post.html?${query}`, {
    allowedOrigins: [fixtures.url.replace(/\/$/, '')],
  });
  await watched.page.waitForFunction(
    (n) =>
      [...Array(n).keys()].every((i) =>
        ['kvlab:result', 'kvlab:figure'].every((type) =>
          window.__messages.some((m) => m.type === type && m.frame === i)
        )
      ),
    chapters.length,
    { timeout: 180000, polling: 200 }
  );
  return { ...watched, messages: await watched.page.evaluate(() => window.__messages) };
}

describe('a post with chapter embeds', { timeout: 400000 }, () => {
  test('five embeds run one lab, and every chapter shows its numbers', async () => {
    const { page, messages } = await openPost(CHAPTERS, `${SMALL_LAB}&autorun`);
    const starts = messages.filter((m) => m.type === 'test:lab-start').map((m) => m.frame);
    assert.equal(starts.length, 1, `lab starts in frames ${starts.join(', ')}`);
    const results = CHAPTERS.map((_, i) => messages.find((m) => m.type === 'kvlab:result' && m.frame === i).result);
    assert.deepEqual(
      results.map((r) => r.measured_by),
      results.map(() => results[starts[0]].measured_by),
      'every embed names the one that measured'
    );
    assert.match(results[0].measured_by, /^[0-9a-f]{16}$/);
    for (const result of results) {
      assert.deepEqual(result.answer, results[0].answer);
      assert.deepEqual(result.steps, results[0].steps);
      assert.deepEqual(result.policies, results[0].policies);
    }
    // Every chapter drew its figure (kvlab:figure: the chapter's picture landed from the shared parts).
    const figures = messages.filter((m) => m.type === 'kvlab:figure').map((m) => `${m.frame}:${m.chapter}`);
    for (const [i, name] of CHAPTERS.entries()) assert.ok(figures.includes(`${i}:${name}`), figures.join());
    // The cache chapter shows the shared ratio (read inside the frame where the driver can).
    if (page.frames) {
      const cache = page.frames().find((f) => f.url().includes('chapter=cache'));
      assert.equal(
        await cache.$eval('#chapter-cache [data-key="ratio"]', (el) => Number(el.dataset.value)),
        results[0].answer.ratio
      );
    }
  });

  test(
    'two embeds: the one that follows shows Part A before the queue is simulated',
    chromiumOnly('the order is the page’s own script; Firefox shares one lab across five embeds above'),
    async () => {
      const { messages } = await openPost(['cache', 'queue'], `${SMALL_LAB}&autorun`);
      assert.equal(messages.filter((m) => m.type === 'test:lab-start').length, 1);
      // The cache chapter's figure landed before the queue's result: it did not wait for the queue.
      const at = (type, frame) => messages.findIndex((m) => m.type === type && m.frame === frame);
      assert.ok(
        at('kvlab:figure', 0) >= 0 && at('kvlab:figure', 0) < at('kvlab:result', 1),
        messages.map((m) => `${m.type}:${m.frame}`).join()
      );
    }
  );
});

describe('the embeds’ heights', { timeout: 400000 }, () => {
  test('each posts its chapter’s usual height at once, only grows while measuring, and its final height unseen', async () => {
    const { page, messages } = await openPost(CHAPTERS, `${SMALL_LAB}&autorun`);
    for (const [i, name] of CHAPTERS.entries()) {
      const mine = messages.filter((m) => m.frame === i);
      const heights = mine.filter((m) => m.type === 'kvlab:height').map((m) => m.height);
      // Space reserved before anything was measured: the first height is a whole chapter's, not a line's.
      assert.ok(mine[0].type === 'kvlab:height' && heights[0] >= 600, `${name}: ${heights.join(' → ')}`);
      // Until its figure landed, the height never shrank.
      const figureAt = mine.findIndex((m) => m.type === 'kvlab:figure');
      const during = mine
        .slice(0, figureAt)
        .filter((m) => m.type === 'kvlab:height')
        .map((m) => m.height);
      for (let k = 1; k < during.length; k += 1)
        assert.ok(during[k] >= during[k - 1], `${name}: ${heights.join(' → ')}`);
    }
    // The final heights arrive without scrolling (the later embeds are far below the fold): each frame
    // comes to be as tall as its document, read inside it where the driver can.
    if (page.frames) {
      const mismatched = async () => {
        const found = [];
        for (const frame of page.frames().filter((f) => f.url().includes('embed.html'))) {
          const documentHeight = await frame.evaluate(() =>
            Math.ceil(document.documentElement.getBoundingClientRect().height)
          );
          const element = await frame.frameElement();
          const frameHeight = await element.evaluate((el) => Math.round(el.getBoundingClientRect().height));
          if (frameHeight !== documentHeight)
            found.push(`${frame.url()}: ${frameHeight}px, its document ${documentHeight}px`);
        }
        return found;
      };
      await eventually(
        async () => (await mismatched()).length === 0,
        async () => (await mismatched()).join('; ')
      );
    }
  });

  test(
    'an author’s height is the one posted; a bad one is refused with a message',
    chromiumOnly('the hash’s height read by the page’s own script; Firefox posts and applies heights above'),
    async () => {
      const { messages } = await openPost(['queue', 'cache'], `${SMALL_LAB}&autorun&height=480`);
      assert.deepEqual([...new Set(messages.filter((m) => m.type === 'kvlab:height').map((m) => m.height))], [480]);
      const { page } = await session.openPage(`${session.server.url}embed.html#chapter=cache&height=9e9&${SMALL_LAB}`);
      await page.waitForSelector('#story-message', { state: 'visible' });
      assert.match(
        await page.textContent('#story-message'),
        /height “9e9” is not a whole number of pixels from 160 to 4000/
      );
    }
  );

  test('the standalone file’s chapter links to the whole walkthrough in that same file', async () => {
    const file = pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href;
    const { page } = await session.openPage(`${file}#chapter=cache&runs=2`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 60000 });
    assert.equal(await page.getAttribute('#story-full-link', 'href'), 'kvlab-standalone.html#runs=2');
  });
});

describe('every post page', () => {
  test('logged no console errors and made no request off its origins', () => {
    session.checkPages({ chromium: 6, firefox: 3 });
  });
});

// The post's own server, closed even when a test above failed (an open server keeps the file running).
after(async () => {
  if (fixtures) await fixtures.close();
});
