import { startBrowser, startServer, watchedPage } from './helpers.mjs';
const file = process.argv[2];
const server = await startServer();
const browser = await startBrowser();
const { page, log } = await watchedPage(browser.context);
await page.goto(`${server.url}index.html#model=file&runs=1&answer_tokens=8&requests=40`);
await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
const t0 = Date.now();
await page.setInputFiles('#story-model-file', file);
console.log('picked', await page.textContent('#story-model-picked'));
await page.click('#story-run');
await page.waitForFunction(() => /Loaded:/.test(document.querySelector('#story-model-picked').textContent), null, {
  timeout: 300000,
});
console.log('loaded after', Date.now() - t0, 'ms:', await page.textContent('#story-model-picked'));
const tRun = Date.now();
await page
  .waitForFunction(
    () =>
      ['done', 'error', 'ready'].includes(document.querySelector('#lab').dataset.state) &&
      !/Loading|Reading/.test(document.querySelector('#phase')?.textContent || ''),
    null,
    { timeout: 600000, polling: 2000 }
  )
  .catch((e) => console.log('wait', e.message));
console.log('lab ended after', Date.now() - tRun, 'ms; phase:', await page.textContent('#phase'));
console.log('lab state', await page.evaluate(() => JSON.stringify(document.querySelector('#lab').dataset)));
console.log(
  'errors shown',
  await page.evaluate(() =>
    [...document.querySelectorAll('.error, [role=alert]')]
      .map((e) => e.id + ': ' + e.textContent.trim().slice(0, 400))
      .join(' | ')
  )
);
await page.locator('#story-model-picked').scrollIntoViewIfNeeded();
await page.screenshot({ path: '/tmp/shots/big-pick.png' });
console.log('errors', JSON.stringify(log.errors));
await browser.close();
await server.close();
process.exit(0);
