// Shared set-up for the browser tests: serve dist/ on 127.0.0.1 (a free port), drive Debian's
// chromium through playwright-core (never a downloaded browser), and watch every page for console
// errors and for requests that leave the page's origin.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../web/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = path.join(root, 'dist');
export const screenshots = path.join(root, 'build', 'screenshots');

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function requireDist() {
  for (const file of ['index.html', 'embed.html', 'kvlab-standalone.html', 'app.js', 'worker.js', 'kvlab.js', 'kvlab.wasm']) {
    if (!fs.existsSync(path.join(dist, file))) throw new Error(`dist/${file} is missing: run scripts/build first`);
  }
}

export async function startBrowser() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function startServer(dir = dist) {
  return serve({ dir, port: 0, host: '127.0.0.1' });
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
  log.offOrigin = (origin) => log.requests.filter((url) => !url.startsWith(origin) && !url.startsWith('data:') &&
    !url.startsWith('blob:') && !allowedOrigins.some((o) => url.startsWith(o)));
  return { page, log };
}

export async function waitForResult(page, timeout = 60000) {
  await page.waitForFunction(() => window.kvlabResult !== undefined, null, { timeout, polling: 100 });
  return page.evaluate(() => window.kvlabResult);
}

// The policy table as [{policy, values: {key: number}}], in row order.
export function readPolicyTable(page) {
  return page.$$eval('#policy-table tbody tr', (rows) => rows.map((row) => ({
    policy: row.dataset.policy,
    values: Object.fromEntries(Array.from(row.querySelectorAll('td[data-key]')).map((td) => [td.dataset.key, Number(td.dataset.value)])),
  })));
}

export function shot(page, name, options = {}) {
  fs.mkdirSync(screenshots, { recursive: true });
  return page.screenshot({ path: path.join(screenshots, name), fullPage: true, ...options });
}

export const SMALL_LAB = 'preset=tiny&runs=1&requests=40';
export const POLICY_ORDER = ['serial-nocache', 'serial-cache', 'static:16', 'continuous:16'];
