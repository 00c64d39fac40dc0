// Shared set-up for the browser tests: serve dist/ on 127.0.0.1 (a free port), drive a browser
// (never a downloaded one), and watch every page for console errors and for requests that leave the
// page's origin.
//
// The engine: KVLAB_ENGINE=chromium (the default: Debian's chromium through playwright-core) or
// KVLAB_ENGINE=firefox (Debian's firefox-esr through puppeteer-core over WebDriver BiDi, behind the
// same Playwright-shaped API: firefox.mjs). scripts/test runs tests/web once per engine; a test that
// the Firefox pass leaves out says why with chromiumOnly(reason).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../web/serve.mjs';
import { startFirefox } from './firefox.mjs';

export const ENGINES = ['chromium', 'firefox'];
export const ENGINE = process.env.KVLAB_ENGINE || 'chromium';
if (!ENGINES.includes(ENGINE))
  throw new Error(`KVLAB_ENGINE must be one of ${ENGINES.join(', ')} (got ${JSON.stringify(ENGINE)})`);

// Options for a test that runs in Chromium only: the Firefox pass skips it and says why (the same
// logic is covered in Chromium, or Firefox's driver lacks what the test needs).
export function chromiumOnly(reason) {
  return ENGINE === 'chromium' ? {} : { skip: `Chromium only: ${reason}` };
}

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = path.join(root, 'dist');
// build/screenshots for Chromium (as before), build/screenshots/firefox for Firefox.
export const screenshots = path.join(root, 'build', 'screenshots', ...(ENGINE === 'chromium' ? [] : [ENGINE]));

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  // A container's /dev/shm may be a few MB: shared memory in /tmp instead (the real model is 61 MB).
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// extraFiles: what a test file needs in dist/ beyond the page itself (e.g. the scalar build).
export function requireDist(extraFiles = []) {
  for (const file of [
    'index.html',
    'embed.html',
    'kvlab-standalone.html',
    'app.js',
    'worker.js',
    'kvlab.js',
    'kvlab.wasm',
    ...extraFiles,
  ]) {
    if (!fs.existsSync(path.join(dist, file))) throw new Error(`dist/${file} is missing: run scripts/build first`);
  }
}

// The engine's browser, headless, with a fresh profile: {context, close}, where context.newPage()
// gives a page with Playwright's API in either engine. engine: ENGINE unless a tool asks for one.
// launchOptions: added to (or replacing) the defaults, e.g. {handleSIGINT: false} for a tool that
// handles Ctrl-C itself (Firefox takes handleSIGINT, viewport, colorScheme and serviceWorkers only).
// serviceWorkers: 'block' (the default) or 'allow'. Blocked, a page served without the COOP/COEP headers
// stays as it loads (not isolated, one thread); allowed, its service worker isolates it after one reload
// (web/src/isolation/, tested in service_worker.test.mjs).
export async function startBrowser(launchOptions = {}, engine = ENGINE) {
  if (engine === 'firefox') return startFirefox(launchOptions);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    serviceWorkers: 'block',
    ...launchOptions,
  });
  return {
    context,
    engine: 'chromium',
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// log(line): each request served, as "GET /path 200".
export async function startServer(dir = dist, log = null) {
  return serve({ dir, port: 0, host: '127.0.0.1', log });
}

// A page that records console errors, page errors, dialogs, requests and result events.
export async function watchedPage(context, { allowedOrigins = [] } = {}) {
  const page = await context.newPage();
  const log = { errors: [], requests: [], dialogs: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') log.errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => log.errors.push(`page error: ${error.message}`));
  page.on('dialog', async (dialog) => {
    log.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on('request', (request) => log.requests.push(request.url()));
  page.on('worker', (worker) => {
    worker.on('console', (message) => {
      if (message.type() === 'error') log.errors.push(`worker console: ${message.text()}`);
    });
  });
  // Records every progress value the page shows and every kvlab:result event.
  await page.addInitScript(() => {
    window.__kvlabTest = { progress: [], events: [] };
    document.addEventListener('kvlab:result', (event) => window.__kvlabTest.events.push(Object.keys(event.detail)));
    const poll = () => {
      const bar = document.getElementById('progress');
      if (bar) {
        const list = window.__kvlabTest.progress;
        if (list[list.length - 1] !== bar.value) list.push(bar.value);
      }
    };
    setInterval(poll, 10);
  });
  log.offOrigin = (origin) =>
    log.requests.filter(
      (url) =>
        !url.startsWith(origin) &&
        !url.startsWith('data:') &&
        !url.startsWith('blob:') &&
        !allowedOrigins.some((o) => url.startsWith(o))
    );
  return { page, log };
}

// One server and one browser for a test file, started before its tests and closed after them (call it
// at the file's top level), and every page the file opens through it, kept for the file's last check.
// extraFiles: see requireDist; preparePage(page): what every page of the file gets before it loads
// (init scripts that record events, probes); launchOptions: startBrowser's (a file's own browser flags).
export function pageSession({ extraFiles = [], preparePage, launchOptions = {} } = {}) {
  const session = {
    server: null,
    browser: null,
    pages: [],
    // The paths the server sent, in order: what the pages and their workers fetched (Firefox does not
    // report a worker's requests to the page).
    served: [],

    // A watched page at url; init: an init script for this page alone, run before preparePage's;
    // allowedOrigins: where else the page may fetch from (a parent page's own origin).
    async openPage(url, { init, allowedOrigins = [] } = {}) {
      const watched = await watchedPage(session.browser.context, { allowedOrigins });
      session.pages.push(watched);
      await watched.page.addInitScript(EXACT_TIMINGS);
      if (init) await watched.page.addInitScript(init);
      if (preparePage) await preparePage(watched.page);
      await watched.page.goto(url);
      return watched;
    },

    // The file's last check: no page it opened logged an error or showed a dialog, and none served
    // asked anything of another origin (file:// pages check their own requests). minimum: the pages
    // the file opens, a number or {chromium, firefox} when the Firefox pass leaves tests out.
    checkPages(minimum) {
      if (typeof minimum === 'object') minimum = minimum[ENGINE];
      const origin = session.server.url.replace(/\/$/, '');
      for (const { page, log } of session.pages) {
        assert.deepEqual(log.errors, [], `errors on ${page.url().slice(0, 200)}`);
        if (page.url().startsWith('http'))
          assert.deepEqual(log.offOrigin(origin), [], `requests off the origin from ${page.url().slice(0, 200)}`);
        assert.deepEqual(log.dialogs, []);
      }
      // Firefox: nothing tried to leave this machine (workers included), see firefox.mjs.
      if (session.browser.context.refusedRequests)
        assert.deepEqual(session.browser.context.refusedRequests(), [], 'requests off this machine');
      assert.ok(session.pages.length >= minimum, `${session.pages.length} pages checked, expected at least ${minimum}`);
    },
  };
  before(async () => {
    requireDist(extraFiles);
    fs.mkdirSync(screenshots, { recursive: true });
    session.server = await startServer(dist, (line) => session.served.push(line.split(' ')[1]));
    session.browser = await startBrowser(launchOptions);
  });
  after(async () => {
    if (session.browser) await session.browser.close();
    if (session.server) await session.server.close();
  });
  return session;
}

// The lab's result once it lands. A page that crashes fails at once, and a run that does not land in
// `timeout` ms fails with what the page says (its state, phase and error), so that a CI log shows why.
export async function waitForResult(page, timeout = 60000) {
  // Chromium's pages tell of a crash (the Firefox adapter has no such event).
  const watchesCrash = ENGINE === 'chromium';
  let onCrash;
  const crashed = new Promise((resolve, reject) => {
    onCrash = () => reject(new Error('the page crashed while waiting for the lab’s result'));
    if (watchesCrash) page.once('crash', onCrash);
  });
  try {
    await Promise.race([
      page.waitForFunction(() => window.kvlabResult !== undefined, null, { timeout, polling: 100 }),
      crashed,
    ]);
  } catch (error) {
    const said = await page
      .evaluate(() => {
        const text = (id) => (document.getElementById(id) || {}).textContent;
        const lab = document.getElementById('lab');
        return `state ${lab && lab.dataset.state}, phase “${text('phase')}”, error “${text('error')}”`;
      })
      .catch(() => 'nothing (the page does not answer)');
    error.message += `; the page says: ${said}`;
    throw error;
  } finally {
    if (watchesCrash) page.off('crash', onCrash);
  }
  return page.evaluate(() => window.kvlabResult);
}

// Waits until check() (sync or async) returns true, polling; fails after timeoutMs with `what` (a string,
// or a function giving one, asked then). For what
// the page does a little after an event (a worker ending, a frame resized): a fixed sleep before an
// assertion fails on a busy host, and the bound here only detects a page that never gets there.
export async function eventually(check, what, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      const said = typeof what === 'function' ? await what() : what;
      assert.fail(`${said} (not within ${timeoutMs} ms)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// At a phone's width the page comes to fit: it does not scroll sideways.
export async function expectNoSidewaysScroll(page, width = 375) {
  await page.setViewportSize({ width, height: 800 });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await eventually(
    async () => (await overflow()) <= 0,
    async () => `the page is ${await overflow()}px wider than a ${width}px screen`
  );
}

// Presses a panel's Run button (#<prefix>-run) and waits for the worker that starts for it. Returns
// endedWithin(ms) -> whether that worker has ended within ms (its close is watched from its start, so
// an early end is not missed).
export async function runPanel(page, prefix) {
  const started = page.waitForEvent('worker');
  await page.click(`#${prefix}-run`);
  const worker = await started;
  const closed = new Promise((resolve) => worker.once('close', () => resolve(true)));
  const endedWithin = (ms) => Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve(false), ms))]);
  return { endedWithin };
}

// The policy table as [{policy, values: {key: number}}], in row order.
export function readPolicyTable(page) {
  return page.$$eval('#policy-table tbody tr', (rows) =>
    rows.map((row) => ({
      policy: row.dataset.policy,
      values: Object.fromEntries(
        Array.from(row.querySelectorAll('td[data-key]')).map((td) => [td.dataset.key, Number(td.dataset.value)])
      ),
    }))
  );
}

export const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// axe-core, evaluated in the page (through the debugging protocol, so the page's CSP does not apply and
// nothing of it ships): the violations within `include` (a selector; the whole page without one).
export async function axeViolations(page, include) {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (selector) => {
    const report = await window.axe.run(selector ? { include: [selector] } : document, { resultTypes: ['violations'] });
    return report.violations.map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join('; ')})`
    );
  }, include || null);
}

export function shot(page, name, options = {}) {
  fs.mkdirSync(screenshots, { recursive: true });
  return page.screenshot({ path: path.join(screenshots, name), fullPage: true, ...options });
}

export const SMALL_LAB = 'preset=tiny&runs=1&requests=40';
export const POLICY_ORDER = ['serial-nocache', 'serial-cache', 'static:16', 'continuous:16'];

// Passes every message a worker of the page sends to its onmessage through change(data, arg, steps)
// first; steps: the step table the message carries (the lab's steps part, or its whole result's), or null.
function rewriteWorkerMessages(change, arg) {
  const stepsOf = (data) =>
    data && data.type === 'part' && data.name === 'steps'
      ? data.value
      : (data && data.result && data.result.answer && data.result.steps) || null;
  const handler = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    configurable: true,
    get() {
      return handler.get.call(this);
    },
    set(listener) {
      handler.set.call(this, listener && ((event) => listener({ data: change(event.data, arg, stepsOf(event.data)) })));
    },
  });
}

// An init script (page.addInitScript, both engines) that rewrites what the page's workers post, with
// change(data, arg, steps) -> data, a self-contained function run in the page (the page's own code is
// unchanged): how a test injects measurements.
export const workerMessagesRewritten = (change, arg) =>
  `(${rewriteWorkerMessages})(${change}, ${JSON.stringify(arg)});`;

// The noise verdicts of a lab worker's message cleared (no noisy cell, no noisy answer or result): every
// page a session opens gets this first, so that what a test asserts of the page rests on the figures
// alone and never on how busy the machine running it was (a loaded CI host marks most cells noisy). The
// noise logic itself is tested on injected noise (noisy_figures, noisy_page), whose rewrites run after this.
function clearNoise(data, _arg, steps) {
  const timing = steps && steps.model && steps.model.timing;
  if (timing) timing.noisy_cells = [];
  const answers = [data && data.result && data.result.answer];
  if (data && data.type === 'part' && (data.name === 'answer' || data.name === 'first_answer'))
    answers.push(data.value);
  for (const answer of answers) if (answer) answer.noisy = false;
  if (data && data.result && data.result.answer) data.result.noisy = false;
  return data;
}
const EXACT_TIMINGS = workerMessagesRewritten(clearNoise);
