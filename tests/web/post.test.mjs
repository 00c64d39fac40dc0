// Browser tests of a blog post with several chapter embeds (tests/web/fixtures/post.html, served from an
// origin of its own as a blog is): the embeds of one post share one lab run. Small configurations only;
// no timing asserted.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ENGINE, SMALL_LAB, pageSession, root, startServer } from './helpers.mjs';

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

  test('two embeds: the one that follows shows Part A before the queue is simulated', async () => {
    const { messages } = await openPost(['cache', 'queue'], `${SMALL_LAB}&autorun`);
    assert.equal(messages.filter((m) => m.type === 'test:lab-start').length, 1);
    // The cache chapter's figure landed before the queue's result: it did not wait for the queue.
    const at = (type, frame) => messages.findIndex((m) => m.type === type && m.frame === frame);
    assert.ok(
      at('kvlab:figure', 0) >= 0 && at('kvlab:figure', 0) < at('kvlab:result', 1),
      messages.map((m) => `${m.type}:${m.frame}`).join()
    );
  });
});

describe('every post page', () => {
  test('logged no console errors and made no request off its origins', async () => {
    session.checkPages(2);
    if (fixtures) await fixtures.close();
  });
});
