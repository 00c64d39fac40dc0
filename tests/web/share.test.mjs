// Browser tests of a result's link (runs/share.js): a finished run carries share_url; opened in a
// second browser it exposes window.kvlabShared before any run of its own and shows "your device"
// against "the shared one" under each compared chapter; a cut or edited link is refused with a message.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, pageSession, startBrowser, waitForResult } from './helpers.mjs';

const session = pageSession();

describe('a result’s link', { timeout: 300000 }, () => {
  let shareUrl = null;
  let first = null;

  test('a finished run carries its link, within the hash limit', async () => {
    const { page } = await session.openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    first = await waitForResult(page);
    shareUrl = first.share_url;
    assert.match(shareUrl, /index\.html#result=[A-Za-z0-9_-]+$/);
    assert.ok(new URL(shareUrl).hash.length <= 4096, `${new URL(shareUrl).hash.length} characters`);
    assert.equal(await page.getAttribute('#story-share-link', 'href'), shareUrl);
  });

  test('opened in another browser: the shared result before any run, then both side by side', async () => {
    const other = await startBrowser();
    try {
      const page = await other.context.newPage();
      await page.goto(shareUrl);
      await page.waitForFunction(() => window.kvlabShared !== undefined, null, { timeout: 30000 });
      const shared = await page.evaluate(() => window.kvlabShared);
      assert.equal(await page.evaluate(() => window.kvlabResult), undefined);
      assert.equal(shared.settings, 'preset=tiny&runs=1&requests=40');
      assert.deepEqual(shared.steps.decode.rows, first.steps.decode.rows);
      assert.equal(shared.answer.answer_tokens, first.answer.answer_tokens);
      assert.deepEqual(Object.keys(shared.policies), first.policy_order);
      // The link's settings are the form's, and the chapters compare before this device has run.
      assert.equal(await page.inputValue('#preset'), 'tiny');
      const cells = (chapter) =>
        page.$$eval(`#chapter-${chapter} .chapter-compare tbody tr`, (rows) =>
          rows.map((row) => Array.from(row.children, (c) => c.textContent))
        );
      for (const chapter of ['tokens', 'cache', 'rows', 'queue']) {
        const rows = await cells(chapter);
        assert.ok(rows.length > 0 && rows.every((r) => r[1] === 'press Run'), `${chapter}: ${JSON.stringify(rows)}`);
      }
      assert.match(
        await page.textContent('#chapter-cache .chapter-compare caption'),
        /the shared one \(Chromium|Firefox/
      );
      await page.click('#story-run');
      await page.waitForFunction(() => window.kvlabResult !== undefined, null, { timeout: 60000, polling: 100 });
      for (const chapter of ['tokens', 'cache', 'rows', 'queue']) {
        const rows = await cells(chapter);
        assert.ok(
          rows.every((r) => r[1] !== 'press Run' && r[1] !== '–' && r[2] !== '–'),
          JSON.stringify(rows)
        );
      }
      assert.deepEqual(await cells('tokens'), [
        ['Prompt + answer tokens', ...Array(2).fill((await cells('tokens'))[0][2])],
      ]);
      assert.equal(await page.$$eval('#chapter-memory .chapter-compare', (t) => t.length), 0);
    } finally {
      await other.close();
    }
  });

  test('a cut or edited link is refused with a message, and nothing is shared', async () => {
    const token = new URL(shareUrl).hash.replace('#result=', '');
    const edited = `${token.slice(0, 40)}${token[40] === 'A' ? 'B' : 'A'}${token.slice(41)}`;
    for (const bad of [token.slice(0, token.length - 9), edited, 'not*base64', 'AAAA']) {
      const { page } = await session.openPage(`${session.server.url}index.html#result=${bad}&${SMALL_LAB}`);
      await page.waitForSelector('#story-message', { state: 'visible', timeout: 30000 });
      assert.match(
        await page.textContent('#story-message'),
        /This link’s shared result cannot be read: .+\. Ask for the link again\./
      );
      assert.equal(await page.evaluate(() => window.kvlabShared), undefined);
      assert.equal(await page.$$eval('.chapter-compare', (t) => t.length), 0);
    }
  });
});

describe('every share page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages(5);
  });
});
