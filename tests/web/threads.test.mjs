// The page's threads (docs/threads.md, "The page"), in the engine helpers.mjs picks: served with the
// COOP and COEP headers the page is cross-origin isolated, its lab worker loads the threaded module and
// runs on what the device offers (more than one thread where it has 2+ cores), with the tokens of one
// thread; served without them it loads the single-threaded module, runs on one thread and says why.
// No timing is asserted.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, chromiumOnly, pageSession, waitForResult, watchedPage } from './helpers.mjs';
import { serve } from '../../web/serve.mjs';
import { dist } from './helpers.mjs';

const THREADED_FILES = ['kvlab-threads.js', 'kvlab-threads.wasm', 'kvlab-threads.worker.js', 'kvlab-thread-worker.js'];
const session = pageSession({ extraFiles: THREADED_FILES });
const LAB = `${SMALL_LAB}&answer_tokens=12&autorun`;

// The environment panel's row, once the module is loaded.
async function threadsRow(page) {
  await page.waitForSelector('#lab[data-state="ready"], #lab[data-state="done"], #lab[data-state="running"]', {
    timeout: 30000,
  });
  return page.textContent('#env-list dd[data-key="Threads"]');
}

// Chapter 3's figure of the rows gain on one thread and on all (drawn from the final result's steps,
// which carry steps.one_thread_decode when the lab ran on threads): its legend and words, or null.
async function threadsFigure(page, result) {
  await page.waitForSelector('#chapter-rows[data-state="landed"]');
  const drawn = () => page.evaluate(() => document.querySelector('#chapter-rows .rows-threads-figure') !== null);
  if (!result.steps.one_thread_decode) return (await drawn()) ? 'drawn' : null;
  await page.waitForSelector('#chapter-rows .rows-threads-figure');
  return {
    legend: await page.$$eval('#chapter-rows .rows-threads-figure li', (items) => items.map((li) => li.textContent)),
    words: await page.textContent('#chapter-rows .rows-gain-words'),
  };
}

// The run at `url`: its result, what the page said about threads and chapter 3's threads figure.
async function labAt(openPage, url) {
  const { page, log } = await openPage(url);
  const result = await waitForResult(page, 90000);
  const row = await threadsRow(page);
  const offered = await page.evaluate(() => navigator.hardwareConcurrency);
  const figure = await threadsFigure(page, result);
  await page.close();
  return { result, row, offered, log, figure };
}

describe('the lab on threads', { timeout: 300000 }, () => {
  let oneThreadTokens = null;

  test('without the headers: the single-threaded module, one thread, and why', async () => {
    const servedBefore = session.served.length;
    const { result, row } = await labAt(session.openPage, `${session.server.url}index.html#${LAB}`);
    assert.equal(result.environment.cross_origin_isolated, false);
    assert.equal(result.environment.threads, 1);
    assert.match(result.environment.threads_note, /^this page is not cross-origin isolated: its server does not send/);
    assert.match(row, /^1: this page is not cross-origin isolated/);
    const served = session.served.slice(servedBefore);
    assert.ok(served.includes('/kvlab.wasm'), 'the single-threaded module was loaded');
    for (const file of THREADED_FILES) assert.ok(!served.includes(`/${file}`), `${file} was not fetched`);
    oneThreadTokens = result.answer.tokens_cache;
    assert.equal(oneThreadTokens.length, 12);
  });

  test(
    'without the headers, a link asking for 4 threads runs on one and says why',
    chromiumOnly('the page’s own choice once it is not isolated, which the test above shows Firefox makes'),
    async () => {
      const { result } = await labAt(session.openPage, `${session.server.url}index.html#${LAB}&threads=4`);
      assert.equal(result.settings.threads, '4');
      assert.equal(result.environment.threads, 1);
      assert.match(result.environment.threads_note, /not cross-origin isolated/);
      assert.deepEqual(result.answer.tokens_cache, oneThreadTokens);
    }
  );

  test('with the headers: the threaded module on what the device offers, the same tokens', async () => {
    const served = [];
    const isolated = await serve({ dir: dist, isolate: true, log: (line) => served.push(line.split(' ')[1]) });
    const pages = [];
    const openIsolated = async (url) => {
      const watched = await watchedPage(session.browser.context);
      pages.push(watched);
      await watched.page.goto(url);
      return watched;
    };
    try {
      const auto = await labAt(openIsolated, `${isolated.url}index.html#${LAB}`);
      assert.equal(auto.result.environment.cross_origin_isolated, true);
      for (const file of THREADED_FILES) assert.ok(served.includes(`/${file}`), `${file} was fetched`);
      const expected = Math.min(auto.offered, 8);
      const check = auto.result.steps.model.thread_check;
      if (auto.offered < 2) assert.equal(auto.result.environment.threads, 1);
      else assert.equal(check.asked, expected);
      if (auto.offered >= 2 && check.used < check.asked) {
        // The check found the threads no faster than one here (other work on the cores): the lab ran on
        // one and says why.
        assert.equal(auto.result.environment.threads, 1);
        assert.equal(auto.result.environment.threads_note, check.reason);
        assert.match(auto.row, new RegExp(`^${expected} \\(the threaded module, up to ${expected};`));
        assert.equal(auto.result.steps.one_thread_decode, undefined);
      } else if (auto.offered >= 2) {
        assert.equal(auto.result.environment.threads, expected);
        assert.equal(auto.result.environment.threads_note, null);
        assert.match(auto.row, new RegExp(`^${expected} \\(the threaded module, up to ${expected};`));
        assert.equal(auto.result.steps.model.threads, expected);
        // Chapter 3: the same decode steps timed on one thread, and the two rows gains on one chart.
        const { decode, one_thread_decode: oneThread } = auto.result.steps;
        assert.deepEqual(oneThread.rows, decode.rows);
        assert.equal(oneThread.contexts.length, 1);
        assert.ok(decode.contexts.includes(oneThread.contexts[0]));
        assert.deepEqual(auto.figure.legend, ['1 thread', `${expected} threads`]);
        assert.match(
          auto.figure.words,
          new RegExp(
            `^The same steps timed on one thread and on all ${expected} \\(context ${oneThread.contexts[0]}\\)`
          )
        );
      }
      assert.deepEqual(auto.result.answer.tokens_cache, oneThreadTokens, 'the tokens of one thread');

      // The same module asked for one thread: the same tokens again.
      const one = await labAt(openIsolated, `${isolated.url}index.html#${LAB}&threads=1`);
      assert.equal(one.result.environment.threads, 1);
      assert.deepEqual(one.result.answer.tokens_cache, oneThreadTokens);
      assert.equal(one.result.steps.one_thread_decode, undefined);
      assert.equal(one.figure, null);
      for (const { log } of pages) {
        assert.deepEqual(log.errors, []);
        assert.deepEqual(log.offOrigin(isolated.url.replace(/\/$/, '')), []);
      }
    } finally {
      await isolated.close();
    }
  });

  test('the pages logged no errors', () => session.checkPages({ chromium: 2, firefox: 1 }));
});
