// The soak (scripts/soak): serves dist/, opens the page in headless Chromium and runs the lab (default
// settings) again and again for N minutes, each time letting the Memory section's simulations (which
// start after every lab run) finish too. After every run it records the run's time, the JS heap of
// the page and of the lab's worker (after a garbage collection, through the DevTools protocol), the
// worker's wasm heap (its diagnostic 'heap' message) and the main thread's longest stall (the longest
// gap of a 50 ms interval timer in the page, and the longest long task). At the end: a table and a
// verdict, exit status 1 if a check fails:
//
//   memory flat    after the last run, the page's JS heap without compiled code (from a heap snapshot),
//                  its DOM nodes and event listeners, the worker's JS heap, the wasm heap size and the
//                  bytes malloc holds are within --tolerance % (default 20) of what they were after the
//                  second run (the first run settles caches). The page's whole JS heap grows over the
//                  first hundred or so runs while V8 compiles and recompiles the hot functions (a heap
//                  snapshot diff puts about 90% of the growth in compiled code; docs/RELIABILITY.md),
//                  so it is printed, with its growth over the second half, but not judged.
//   never frozen   the longest main-thread gap of every run is under 1 s
//   no errors      every run gave a result; no console or page error, no request off the origin
//
//   node tools/soak.mjs [--minutes N] [--tolerance P] [--hash SETTINGS] [--out FILE.json]
//

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer } from '../tests/web/helpers.mjs';
import { CdpProbe, installProbes, mainThread, wasmHeap } from '../tests/web/probes.mjs';

const FROZEN_MS = 1000;

function usage(message) {
  if (message) console.error(`soak: ${message}`);
  console.error('usage: scripts/soak [--minutes N] [--tolerance P] [--hash SETTINGS] [--out FILE.json]');
  console.error('  --minutes N     how long to keep running the lab, 0.1 to 1440 (default 10)');
  console.error(
    "  --tolerance P   how much the last run's heaps may exceed the second run's, in %, 0 to 1000 (default 20)"
  );
  console.error("  --hash SETTINGS the page's settings, as in its URL hash (default: none, the default lab)");
  console.error("  --out FILE      also write every run's figures as JSON (default build/soak/soak-DATE.json)");
  process.exit(2);
}

function parseArgs(argv) {
  const options = { minutes: 10, tolerance: 20, hash: '', out: null };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      i += 1;
      return argv[i];
    };
    const number = (name, lo, hi) => {
      const text = value();
      const v = Number(text);
      if (!/^\d+(\.\d+)?$/.test(text) || v < lo || v > hi)
        usage(`${name} must be a number from ${lo} to ${hi} (got ${JSON.stringify(text)})`);
      return v;
    };
    if (arg === '--minutes') options.minutes = number('--minutes', 0.1, 1440);
    else if (arg === '--tolerance') options.tolerance = number('--tolerance', 0, 1000);
    else if (arg === '--hash') options.hash = value().replace(/^#/, '');
    else if (arg === '--out') options.out = value();
    else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (/(^|&)autorun\b/.test(options.hash)) usage('--hash must not hold autorun: the soak presses Run itself');
  return options;
}

const MB = (bytes) => (bytes === null || bytes === undefined ? '–' : (bytes / 1048576).toFixed(2)); // MiB

function table(rows) {
  const header = [
    'run',
    'at (s)',
    'run (s)',
    'memory (s)',
    'page JS MiB',
    'worker JS MiB',
    'wasm heap MiB',
    'malloc B',
    'max gap ms',
    'long task ms',
    'load',
  ];
  const lines = rows.map((r) =>
    [
      r.run,
      (r.at_ms / 1000).toFixed(0),
      (r.run_ms / 1000).toFixed(2),
      r.memory_ms === null ? '–' : (r.memory_ms / 1000).toFixed(2),
      MB(r.page_js_bytes),
      MB(r.worker_js_bytes),
      MB(r.wasm_heap_bytes),
      r.wasm_in_use_bytes,
      r.max_gap_ms.toFixed(0),
      r.long_task_ms.toFixed(0),
      r.load1.toFixed(2),
    ].map(String)
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  requireDist();
  const server = await startServer();
  // Ctrl-C is ours: it ends the soak after the current run, with the table.
  const browser = await startBrowser({ handleSIGINT: false, handleSIGTERM: false });
  const rows = [];
  // The page's heap split by a snapshot after run 2 and after the last run (CdpProbe.pageHeapByKind).
  const heapSplit = { second: null, last: null };
  const problems = [];
  let crashed = false;
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    console.log('\nsoak: interrupted; finishing the current run');
  });
  const started = Date.now();
  const deadline = started + options.minutes * 60000;
  try {
    // Watched by hand, not with helpers.watchedPage, whose records grow with every run: the soak
    // measures the page's own heap.
    const page = await browser.context.newPage();
    const errors = [];
    const offOrigin = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      const u = request.url();
      if (!u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')) offOrigin.push(u);
    });
    page.on('worker', (worker) =>
      worker.on('console', (message) => {
        if (message.type() === 'error') errors.push(`worker console: ${message.text()}`);
      })
    );
    page.on('crash', () => {
      crashed = true;
    });
    await installProbes(page);
    const cdp = await CdpProbe.open(page);
    const url = `${server.url}index.html${options.hash ? `#${options.hash}` : ''}`;
    await page.goto(url);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 60000 });
    const loaded = await wasmHeap(page);
    console.log(
      `soak: ${url}, for ${options.minutes} min; ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`
    );
    console.log(`soak: after loading: wasm heap ${MB(loaded.heap_bytes)} MiB, malloc ${loaded.in_use_bytes} bytes`);

    while (Date.now() < deadline && !interrupted && !crashed) {
      const n = rows.length + 1;
      await mainThread(page, { reset: true });
      const t0 = Date.now();
      await page.click('#run');
      try {
        await page.waitForFunction(
          (k) => window.__kvlabProbe.results() >= k || document.getElementById('lab').dataset.state === 'error',
          n,
          { timeout: 15 * 60000, polling: 250 }
        );
      } catch (error) {
        problems.push(`run ${n}: no result within 15 min (${error.message.split('\n')[0]})`);
        break;
      }
      const runWall = Date.now() - t0;
      if ((await page.getAttribute('#lab', 'data-state')) === 'error') {
        problems.push(
          `run ${n}: the page shows an error: ${await page.textContent('#error-message')} ${await page.textContent('#error-detail')}`
        );
        break;
      }
      // After each lab run the page's Memory section simulates the KV-memory policies on the new step
      // table, in a worker of its own: a reader would see it finish before running the lab again.
      let memoryMs = null;
      if ((await page.getAttribute('#memory', 'data-state').catch(() => null)) === 'running') {
        const t1 = Date.now();
        try {
          await page.waitForFunction(() => document.getElementById('memory').dataset.state !== 'running', null, {
            timeout: 10 * 60000,
            polling: 250,
          });
        } catch (error) {
          problems.push(`run ${n}: the Memory section did not finish within 10 min`);
          break;
        }
        memoryMs = Date.now() - t1;
        const state = await page.getAttribute('#memory', 'data-state');
        if (state !== 'done') problems.push(`run ${n}: the Memory section ended in state ${state}`);
      }
      const gap = await mainThread(page);
      const elapsed = await page.evaluate(() => window.kvlabResult.elapsed_ms);
      const heap = await wasmHeap(page);
      const pageHeap = await cdp.pageHeap();
      const workerHeap = await cdp.labWorkerHeap().catch(() => null);
      const row = {
        run: n,
        at_ms: Date.now() - started,
        run_ms: elapsed,
        wall_ms: runWall,
        memory_ms: memoryMs,
        page_js_bytes: pageHeap.used_bytes,
        page_nodes: pageHeap.nodes,
        page_listeners: pageHeap.listeners,
        worker_js_bytes: workerHeap ? workerHeap.used_bytes : null,
        wasm_heap_bytes: heap.heap_bytes,
        wasm_in_use_bytes: heap.in_use_bytes,
        max_gap_ms: gap.max_gap_ms,
        long_task_ms: gap.long_task_ms,
        long_tasks: gap.long_tasks,
        load1: os.loadavg()[0],
      };
      rows.push(row);
      if (n === 2) heapSplit.second = await cdp.pageHeapByKind();
      console.log(
        `run ${n}: ${(elapsed / 1000).toFixed(2)} s${memoryMs === null ? '' : `, Memory section ${(memoryMs / 1000).toFixed(2)} s`}; page JS ${MB(row.page_js_bytes)} MiB, worker JS ${MB(row.worker_js_bytes)} MiB, ` +
          `wasm ${MB(row.wasm_heap_bytes)} MiB (malloc ${row.wasm_in_use_bytes} B); max gap ${row.max_gap_ms.toFixed(0)} ms; load ${row.load1.toFixed(2)}`
      );
    }
    if (crashed) problems.push('the page crashed');
    for (const e of errors) problems.push(e);
    for (const u of offOrigin) problems.push(`request off the origin: ${u}`);
    if (heapSplit.second && !crashed) heapSplit.last = await cdp.pageHeapByKind();
    await cdp.close();
  } finally {
    await browser.close();
    await server.close();
  }

  const minutes = (Date.now() - started) / 60000;
  console.log(`\n${table(rows)}\n`);
  const checks = [];
  if (rows.length < 3) {
    checks.push({
      name: 'memory flat',
      ok: false,
      text: `only ${rows.length} runs: at least 3 are needed (a longer --minutes?)`,
    });
  } else {
    const second = rows[1];
    const last = rows[rows.length - 1];
    const parts = [];
    let ok = true;
    // The page's JS heap is judged without its compiled code: V8 keeps compiling and recompiling the hot
    // functions for a hundred runs and more (docs/RELIABILITY.md), which a leak is not.
    const measured = [
      [
        'page JS without compiled code',
        heapSplit.second?.other_bytes ?? null,
        heapSplit.last?.other_bytes ?? null,
        true,
      ],
      ['page DOM nodes', second.page_nodes, last.page_nodes, false],
      ['page event listeners', second.page_listeners, last.page_listeners, false],
      ['worker JS', second.worker_js_bytes, last.worker_js_bytes, true],
      ['wasm heap', second.wasm_heap_bytes, last.wasm_heap_bytes, true],
      ['wasm malloc', second.wasm_in_use_bytes, last.wasm_in_use_bytes, false],
    ];
    for (const [label, before, after, inMiB] of measured) {
      if (before === null || after === null || before === undefined || after === undefined) {
        ok = false;
        parts.push(`${label} not measured`);
        continue;
      }
      const change = (after / before - 1) * 100;
      const within = change <= options.tolerance;
      ok = ok && within;
      const show = inMiB ? (b) => `${MB(b)} MiB` : (b) => `${b}${label === 'wasm malloc' ? ' B' : ''}`;
      parts.push(
        `${label} ${show(before)} → ${show(after)} (${change >= 0 ? '+' : ''}${change.toFixed(1)}%)${within ? '' : ' TOO MUCH'}`
      );
    }
    checks.push({
      name: 'memory flat',
      ok,
      text: `run 2 → run ${last.run}, within ${options.tolerance}%: ${parts.join('; ')}`,
    });
    if (heapSplit.last) {
      console.log(
        `soak: the page's heap snapshot, run 2 → run ${last.run}: compiled code ${MB(heapSplit.second.code_bytes)} → ${MB(heapSplit.last.code_bytes)} MiB, ` +
          `the rest ${MB(heapSplit.second.other_bytes)} → ${MB(heapSplit.last.other_bytes)} MiB; page JS heap (getHeapUsage) ${MB(second.page_js_bytes)} → ${MB(last.page_js_bytes)} MiB`
      );
    }
    const mid = rows[Math.floor((rows.length - 1) / 2)];
    const perRun = (last.page_js_bytes - mid.page_js_bytes) / (last.run - mid.run || 1);
    console.log(
      `soak: page JS heap over the second half (run ${mid.run} → ${last.run}): ${MB(mid.page_js_bytes)} → ${MB(last.page_js_bytes)} MiB, ` +
        `${(perRun / 1024).toFixed(1)} KiB per run`
    );
  }
  const worst = rows.reduce((m, r) => Math.max(m, r.max_gap_ms), 0);
  const worstTask = rows.reduce((m, r) => Math.max(m, r.long_task_ms), 0);
  checks.push({
    name: 'never frozen',
    ok: rows.length > 0 && worst < FROZEN_MS,
    text: `longest main-thread gap ${worst.toFixed(0)} ms (limit ${FROZEN_MS} ms); longest long task ${worstTask.toFixed(0)} ms`,
  });
  checks.push({
    name: 'no errors',
    ok: problems.length === 0,
    text: problems.length
      ? problems.join(' | ')
      : 'every run gave a result; no console or page error, no request off the origin',
  });
  const durations = rows.map((r) => r.run_ms / 1000).sort((a, b) => a - b);
  const median = durations.length ? durations[Math.floor(durations.length / 2)] : NaN;
  console.log(
    `soak: ${minutes.toFixed(1)} min, ${rows.length} runs (median ${median.toFixed(2)} s, ${durations.length ? durations[0].toFixed(2) : '–'}–${durations.length ? durations[durations.length - 1].toFixed(2) : '–'} s); load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
  for (const c of checks) console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.text}`);
  const verdict = checks.every((c) => c.ok);
  console.log(`soak: ${verdict ? 'PASS' : 'FAIL'}`);

  const out =
    options.out || path.join(root, 'build', 'soak', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    `${JSON.stringify({ options, minutes, cores: os.cpus().length, rows, heap_split: heapSplit, checks, verdict }, null, 2)}\n`
  );
  console.log(`soak: figures in ${path.relative(process.cwd(), out)}`);
  process.exit(verdict ? 0 : 1);
}

main().catch((error) => {
  console.error(`soak: ${error.stack || error}`);
  process.exit(1);
});
