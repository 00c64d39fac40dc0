// The page's service worker (web/src/isolation/, docs/threads.md "Static hosts"): served WITHOUT the COOP
// and COEP headers, in a browser that allows service workers, the page registers its worker, reloads
// once through it and is then cross-origin isolated, its lab on the threaded module; the next visit is
// isolated from its first load. Where the server sends the headers, and inside another site's frame,
// no worker is registered. No timing is asserted.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { SMALL_LAB, dist, pageSession, startServer, waitForResult, watchedPage } from './helpers.mjs';
import { serve } from '../../web/serve.mjs';

const WORKER_FILE = 'isolation-worker.js';
const THREADED_FILES = ['kvlab-threads.js', 'kvlab-threads.wasm', 'kvlab-threads.worker.js', 'kvlab-thread-worker.js'];
const session = pageSession({
  extraFiles: [WORKER_FILE, ...THREADED_FILES],
  launchOptions: { serviceWorkers: 'allow' },
});
const LAB = `${SMALL_LAB}&answer_tokens=12&autorun`;

// The page's result, read across its reload: each wait is short and starts again on the page's current
// document (Firefox's driver does not carry a wait over to the next document).
async function resultAcrossReload(page, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await waitForResult(page, 2000);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

// How often the server sent `file` since `from` (an index into session.served).
const servedCount = (file, from) => session.served.slice(from).filter((p) => p.split('#')[0] === `/${file}`).length;

describe('the service worker that isolates the page', { timeout: 300000 }, () => {
  test('without the headers: one reload through the worker, then isolated, on more than one thread', async () => {
    const from = session.served.length;
    const { page } = await session.openPage(`${session.server.url}index.html#${LAB}`);
    const result = await resultAcrossReload(page, 120000);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    assert.equal(result.environment.cross_origin_isolated, true);
    assert.ok(servedCount(WORKER_FILE, from) >= 1, 'the worker was fetched');
    assert.equal(servedCount('index.html', from), 2, 'the page loaded twice: once to register, once through it');
    for (const file of THREADED_FILES) assert.ok(servedCount(file, from) >= 1, `${file} was fetched`);
    const offered = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.ok(offered >= 2, `this test needs a device with 2 or more cores (${offered})`);
    // The threaded module, asked for every core; on them unless its check found them no faster than one.
    const check = result.steps.model.thread_check;
    assert.equal(check.asked, Math.min(offered, 8));
    assert.equal(result.environment.threads, check.used === 1 ? 1 : check.asked);
    assert.equal(result.environment.threads_note, check.used === 1 ? check.reason : null);
    assert.equal(result.answer.tokens_cache.length, 12);
    assert.match(await page.textContent('#env-list dd[data-key="Threads"]'), /^\d+ \(the threaded module/);

    await page.close();

    // The next visit comes through the worker from its first load: isolated, no reload.
    const again = session.served.length;
    const second = await session.openPage(`${session.server.url}index.html#${SMALL_LAB}`);
    await second.page.waitForFunction(() => document.readyState === 'complete', null, { timeout: 60000 });
    assert.equal(await second.page.evaluate(() => self.crossOriginIsolated), true);
    assert.equal(servedCount('index.html', again), 1);
    await second.page.close();
  });

  test('with the headers: no worker is registered', async () => {
    const served = [];
    const isolated = await serve({ dir: dist, isolate: true, log: (line) => served.push(line.split(' ')[1]) });
    try {
      const watched = await watchedPage(session.browser.context);
      await watched.page.goto(`${isolated.url}index.html#${SMALL_LAB}`);
      await watched.page.waitForSelector('#lab[data-state="ready"], #lab[data-state="error"]', { timeout: 60000 });
      assert.equal(await watched.page.evaluate(() => self.crossOriginIsolated), true);
      assert.equal(
        await watched.page.evaluate(() => navigator.serviceWorker.getRegistrations().then((r) => r.length)),
        0
      );
      assert.ok(!served.includes(`/${WORKER_FILE}`), `${WORKER_FILE} was not fetched`);
      assert.deepEqual(watched.log.errors, []);
      await watched.page.close();
    } finally {
      await isolated.close();
    }
  });

  test('inside another site’s frame: no worker, one thread, and why', async () => {
    // A blog post on another origin, with the compact view in a frame; the kvlab server is a new one,
    // so that no worker of an earlier test is there.
    const blog = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-blog-'));
    const served = [];
    const kvlab = await startServer(dist, (line) => served.push(line.split(' ')[1]));
    fs.writeFileSync(
      path.join(blog, 'post.html'),
      `<!doctype html><meta charset="utf-8"><title>A post</title><link rel="icon" href="data:,">
<iframe id="lab" title="kvlab" src="${kvlab.url}embed.html#${LAB}" width="600" height="700" style="border:0"></iframe>
<script>
  window.fromFrame = [];
  addEventListener('message', (event) => window.fromFrame.push({ type: event.data && event.data.type, result: event.data && event.data.result }));
</script>`
    );
    const blogServer = await startServer(blog);
    try {
      const { page } = await session.openPage(`${blogServer.url}post.html`, {
        allowedOrigins: [blogServer.url, kvlab.url],
      });
      await page.waitForFunction(() => window.fromFrame.some((m) => m.type === 'kvlab:result'), null, {
        timeout: 90000,
        polling: 100,
      });
      const [message] = await page.evaluate(() => window.fromFrame.filter((m) => m.type === 'kvlab:result'));
      assert.equal(message.result.environment.cross_origin_isolated, false);
      assert.equal(message.result.environment.threads, 1);
      assert.match(message.result.environment.threads_note, /it is embedded in another page/);
      assert.ok(!served.includes(`/${WORKER_FILE}`), `${WORKER_FILE} was not fetched`);
      assert.equal(served.filter((p) => p.startsWith('/embed.html')).length, 1, 'the frame did not reload');
      await page.close();
    } finally {
      await blogServer.close();
      await kvlab.close();
      fs.rmSync(blog, { recursive: true, force: true });
    }
  });

  test('the pages logged no errors', () => session.checkPages({ chromium: 3, firefox: 1 }));
});
