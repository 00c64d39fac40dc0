// Firefox for the browser tests: Debian's firefox-esr, headless, driven by npm puppeteer-core over
// WebDriver BiDi (playwright-core drives only its own patched Firefox builds, which cannot be fetched
// here). The pages and workers it hands out answer the part of Playwright's API that the tests use,
// so one set of tests runs in both engines (helpers.mjs picks the engine); a test that needs more adds
// it here. What Firefox's BiDi cannot do is said where it matters:
//   - evaluating code inside a worker (script.callFunction finds no worker realm): worker.evaluate throws;
//   - requests made by workers are not reported to the page (importScripts, fetch): the tests that
//     count requests read the test server's log instead;
//   - a worker's console messages arrive as the page's (worker.on('console') never fires).

import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

export const FIREFOX_PATH = '/usr/bin/firefox-esr';
const DEFAULT_TIMEOUT_MS = 30000;

// Where everything Firefox would fetch from outside this machine goes: a proxy on loopback that
// refuses every request and keeps its address (loopback itself is never proxied, so the test server
// is reached directly). Firefox as installed asks services for updates, blocklists and telemetry;
// the preferences below turn those off, and whatever is left ends here instead of on the network.
async function deadEndProxy() {
  const refused = [];
  const server = http.createServer((req, res) => {
    refused.push(req.url);
    res.writeHead(403);
    res.end();
  });
  server.on('connect', (req, socket) => {
    refused.push(`https://${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, refused, close: () => new Promise((done) => server.close(() => done())) };
}

function preferences(proxyPort, downloadsDir, serviceWorkers) {
  return {
    // Service workers as helpers.mjs's startBrowser asks ('block' turns them off: no navigator.serviceWorker).
    'dom.serviceWorkers.enabled': serviceWorkers === 'allow',
    // Downloads land in downloadsDir without asking (page.waitForEvent('download') watches it).
    'browser.download.dir': downloadsDir,
    'browser.download.folderList': 2,
    'browser.download.useDownloadDir': true,
    'browser.download.always_ask_before_handling_new_types': false,
    'browser.download.start_downloads_in_tmp_dir': false,
    // A reader's Firefox treats every file:// page as its own origin; puppeteer's profile relaxes it.
    'security.fileuri.strict_origin_policy': true,
    // Nothing leaves loopback: every other host through the refusing proxy, and no background services.
    'network.proxy.type': 1,
    'network.proxy.http': '127.0.0.1',
    'network.proxy.http_port': proxyPort,
    'network.proxy.ssl': '127.0.0.1',
    'network.proxy.ssl_port': proxyPort,
    'network.proxy.allow_hijacking_localhost': false,
    'network.trr.mode': 5,
    'network.dns.disablePrefetch': true,
    'network.prefetch-next': false,
    'network.connectivity-service.enabled': false,
    'network.captive-portal-service.enabled': false,
    'app.update.auto': false,
    'extensions.blocklist.enabled': false,
    'toolkit.telemetry.enabled': false,
    'toolkit.telemetry.unified': false,
    'datareporting.usage.uploadEnabled': false,
    'browser.safebrowsing.update.enabled': false,
    'browser.region.update.enabled': false,
    'browser.topsites.contile.enabled': false,
    'dom.push.connection.enabled': false,
    'media.gmp-gmpopenh264.enabled': false,
  };
}

// A worker as the tests see it: its URL, a 'close' event when it ends, and no evaluate (see above).
// `serial` tells two workers of one page apart (tests compare page.workers() lists).
class FirefoxWorker extends EventEmitter {
  constructor(url, serial) {
    super();
    this.workerUrl = url;
    this.serial = serial;
  }

  url() {
    return this.workerUrl;
  }

  evaluate() {
    return Promise.reject(
      new Error(
        'Firefox: WebDriver BiDi cannot evaluate code in a worker (no worker realm); mark the test chromiumOnly'
      )
    );
  }
}

// Runs in the page: a copy of value in which no plain object or array appears twice (cycles kept).
function untangle(value) {
  const path = new Set();
  const copy = (v) => {
    if (v === null || typeof v !== 'object' || path.has(v)) return v;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    path.add(v);
    const out = Array.isArray(v) ? v.map(copy) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]));
    path.delete(v);
    return out;
  };
  return copy(value);
}

// A puppeteer page behind the Playwright methods the tests call (same names, arguments and defaults:
// actions wait for their element, waitForSelector waits until visible).
class FirefoxPage {
  #raw;
  #context;
  #workers = new Map(); // puppeteer worker -> FirefoxWorker
  #events = new EventEmitter();
  #serial = 0;

  constructor(raw, context) {
    this.#raw = raw;
    this.#context = context;
    raw.on('workercreated', (worker) => this.#events.emit('worker', this.#worker(worker)));
    raw.on('workerdestroyed', (worker) => {
      const adapted = this.#workers.get(worker);
      if (adapted) adapted.emit('close', adapted);
    });
  }

  #worker(raw) {
    if (!this.#workers.has(raw)) {
      this.#serial += 1;
      this.#workers.set(raw, new FirefoxWorker(raw.url(), this.#serial));
    }
    return this.#workers.get(raw);
  }

  // Events: console, pageerror, dialog and request pass through (puppeteer's objects have the same
  // methods: type(), text(), message, message(), dismiss(), url()); worker gives a FirefoxWorker.
  on(name, handler) {
    if (name === 'worker') this.#events.on('worker', handler);
    else if (['console', 'pageerror', 'dialog', 'request'].includes(name)) this.#raw.on(name, handler);
    else throw new Error(`Firefox page: no '${name}' event in the adapter`);
    return this;
  }

  waitForEvent(name, { timeout = DEFAULT_TIMEOUT_MS } = {}) {
    if (name === 'worker') {
      return withTimeout(new Promise((resolve) => this.#events.once('worker', resolve)), timeout, 'a new worker');
    }
    if (name === 'download') return this.#context.nextDownload(timeout);
    throw new Error(`Firefox page: waitForEvent('${name}') is not in the adapter`);
  }

  workers() {
    return this.#raw.workers().map((worker) => this.#worker(worker));
  }

  context() {
    return this.#context;
  }

  url() {
    return this.#raw.url();
  }

  goto(url, { timeout = DEFAULT_TIMEOUT_MS } = {}) {
    return this.#raw.goto(url, { waitUntil: 'load', timeout });
  }

  close() {
    return this.#raw.close();
  }

  // script: a function (with arg) or a script's source (puppeteer refuses a source with an argument).
  addInitScript(script, arg) {
    return typeof script === 'string'
      ? this.#raw.evaluateOnNewDocument(script)
      : this.#raw.evaluateOnNewDocument(script, arg);
  }

  // BiDi sends an object met twice in a result as a bare reference, which puppeteer turns into
  // undefined (result.model and result.simd.model are one object): the result is copied into a tree
  // in the page first.
  async evaluate(fn, arg) {
    const handle = await this.#raw.evaluateHandle(fn, arg);
    try {
      return await handle.evaluate(untangle);
    } finally {
      await handle.dispose();
    }
  }

  $eval(selector, fn, arg) {
    return this.#raw.$eval(selector, fn, arg);
  }

  $$eval(selector, fn, arg) {
    return this.#raw.$$eval(selector, fn, arg);
  }

  // Playwright's default state is 'visible'; 'hidden' also accepts a missing element.
  async waitForSelector(selector, { state = 'visible', timeout = DEFAULT_TIMEOUT_MS } = {}) {
    return this.#raw.waitForSelector(selector, {
      visible: state === 'visible',
      hidden: state === 'hidden' || state === 'detached',
      timeout,
    });
  }

  waitForFunction(fn, arg, { timeout = DEFAULT_TIMEOUT_MS, polling = 50 } = {}) {
    return this.#raw.waitForFunction(fn, { timeout, polling: polling === 'raf' ? 'raf' : Number(polling) }, arg);
  }

  waitForTimeout(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  async #attached(selector, timeout = DEFAULT_TIMEOUT_MS) {
    await this.#raw.waitForSelector(selector, { timeout });
  }

  async #onElement(selector, fn, arg) {
    await this.#attached(selector);
    return this.#raw.$eval(selector, fn, arg);
  }

  textContent(selector) {
    return this.#onElement(selector, (el) => el.textContent);
  }

  getAttribute(selector, name) {
    return this.#onElement(selector, (el, attribute) => el.getAttribute(attribute), name);
  }

  inputValue(selector) {
    return this.#onElement(selector, (el) => el.value);
  }

  // Playwright's rule: a non-empty box and not visibility:hidden; a missing element is not visible.
  isVisible(selector) {
    return this.#raw.evaluate((sel) => {
      const el = document.querySelector(sel);
      if (!el || getComputedStyle(el).visibility !== 'visible') return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0;
    }, selector);
  }

  isEnabled(selector) {
    return this.#onElement(selector, (el) => !el.matches(':disabled'));
  }

  async click(selector, { timeout = DEFAULT_TIMEOUT_MS } = {}) {
    await this.#raw.waitForSelector(selector, { visible: true, timeout });
    await this.#raw.click(selector);
  }

  // As Playwright's check and uncheck: a click, only when the box is not already in that state.
  async check(selector) {
    if (!(await this.#onElement(selector, (el) => el.checked))) await this.click(selector);
  }

  async uncheck(selector) {
    if (await this.#onElement(selector, (el) => el.checked)) await this.click(selector);
  }

  // As Playwright's fill: focus, replace the value, one input event (no change event).
  fill(selector, value) {
    return this.#onElement(
      selector,
      (el, text) => {
        el.focus();
        el.value = text;
        el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
      },
      value
    );
  }

  async press(selector, key) {
    await this.#attached(selector);
    await this.#raw.focus(selector);
    await this.#raw.keyboard.press(key);
  }

  async selectOption(selector, value) {
    await this.#attached(selector);
    return this.#raw.select(selector, value);
  }

  dispatchEvent(selector, type) {
    return this.#onElement(
      selector,
      (el, name) => el.dispatchEvent(new Event(name, { bubbles: true, cancelable: true, composed: true })),
      type
    );
  }

  setViewportSize({ width, height }) {
    return this.#raw.setViewport({ width, height });
  }

  screenshot(options) {
    return this.#raw.screenshot(options);
  }

  locator(selector) {
    const raw = this.#raw;
    return {
      async screenshot(options) {
        const element = await raw.waitForSelector(selector, { visible: true });
        return element.screenshot(options);
      },
    };
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const expired = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Firefox: no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

// The next file that finishes downloading into dir: Firefox writes NAME.part (and an empty NAME)
// until it is done, so a new NAME counts once NAME.part is gone and its size held for a poll.
async function nextDownload(dir, timeout) {
  const before = new Set(fs.readdirSync(dir));
  const deadline = Date.now() + timeout;
  const sizes = new Map();
  while (Date.now() < deadline) {
    const names = fs.readdirSync(dir);
    for (const name of names.filter((n) => !before.has(n) && !n.endsWith('.part') && !names.includes(`${n}.part`))) {
      const file = path.join(dir, name);
      const size = fs.statSync(file).size;
      if (size > 0 && sizes.get(name) === size) return { path: async () => file, suggestedFilename: () => name };
      sizes.set(name, size);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Firefox: no download within ${timeout} ms`);
}

// Starts Firefox with a fresh profile (puppeteer makes one in the temp dir and removes it on close).
// Returns {context, close} as helpers.startBrowser does for Chromium: context.newPage() gives a
// FirefoxPage. viewport: {width, height}; handleSIGINT as puppeteer's; colorScheme: 'light' or 'dark', the
// prefers-color-scheme pages see (as Playwright's option of that name for Chromium); serviceWorkers: 'block'
// or 'allow'.
export async function startFirefox({
  viewport = { width: 1280, height: 900 },
  handleSIGINT = true,
  colorScheme = 'light',
  serviceWorkers = 'block',
} = {}) {
  const proxy = await deadEndProxy();
  const downloadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-firefox-downloads-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    defaultViewport: viewport,
    handleSIGINT,
    extraPrefsFirefox: {
      ...preferences(proxy.port, downloadsDir, serviceWorkers),
      // What prefers-color-scheme matches in pages: 0 dark, 1 light.
      'layout.css.prefers-color-scheme.content-override': colorScheme === 'dark' ? 0 : 1,
    },
    // MOZ_DISABLE_NONLOCAL_CONNECTIONS: Firefox's own test switch; it also lets the remote-settings
    // client take puppeteer's dummy server instead of calling home at start.
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1', MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' },
  });
  const context = {
    engine: 'firefox',
    version: await browser.version(),
    async newPage() {
      return new FirefoxPage(await browser.newPage(), context);
    },
    nextDownload: (timeout) => nextDownload(downloadsDir, timeout),
    // Requests that tried to leave this machine (refused by the proxy), for the file's last check.
    refusedRequests: () => [...proxy.refused],
    close: () => browser.close(),
  };
  return {
    context,
    engine: 'firefox',
    async close() {
      await browser.close();
      await proxy.close();
      fs.rmSync(downloadsDir, { recursive: true, force: true });
    },
  };
}
