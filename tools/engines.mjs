// Why the same wasm module behaves differently in Chromium and Firefox (docs/benchmarks.md,
// "Chromium and Firefox"): the page at its default settings in each engine, one after the other on
// the same machine, plus the same benchmark of the wasm SIMD module under Node, printed side by side:
//   - the clocks: performance.now()'s resolution on the page and in the worker, the shortest sample;
//   - the default lab: its time, Part A's cache ratio, the decode steps at context 64 (1 and 16 rows);
//   - the SIMD vs scalar vs JavaScript panel (default model): the three decode steps and their ratios,
//     and bench()'s arithmetic peak, read bandwidth and matrix kernels of both wasm builds, measured
//     inside the browser's worker;
// and saves screenshots of each engine's page at 1280 and 390 px. A measurement, not a test (not a
// *.test.* file; scripts/test does not run it). Needs the build (scripts/build).
//
//   node tools/engines.mjs [--engines chromium,firefox] [--no-node] [--out FILE.json]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ENGINES,
  requireDist,
  root,
  startBrowser,
  startServer,
  waitForResult,
  watchedPage,
} from '../tests/web/helpers.mjs';

function usage(message) {
  console.error(
    `engines: ${message}\nusage: node tools/engines.mjs [--engines ${ENGINES.join(',')}] [--no-node] [--out FILE.json]`
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = { engines: ENGINES, node: true, out: null };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--no-node') {
      options.node = false;
      continue;
    }
    if (!['--engines', '--out'].includes(flag)) usage(`unknown flag ${flag}`);
    const value = argv[i + 1];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === '--engines') {
      options.engines = value.split(',');
      const unknown = options.engines.filter((e) => !ENGINES.includes(e));
      if (unknown.length || !options.engines.length) usage(`--engines must be a list of ${ENGINES.join(', ')}`);
    } else {
      options.out = value;
    }
    i += 1;
  }
  return options;
}

const SCREENSHOTS = path.join(root, 'build', 'screenshots', 'engines');

// The figures of one engine's default lab (window.kvlabResult).
function labFigures(result) {
  const { decode } = result.steps;
  const at = (rows, context) => decode.ms[decode.rows.indexOf(rows)][decode.contexts.indexOf(context)];
  const env = result.environment;
  return {
    browser: env.browser,
    engine: env.engine,
    page_timer_ms: env.timer_resolution_ms,
    worker_timer_ms: env.worker_timer_resolution_ms,
    min_sample_ms: env.min_sample_ms,
    lab_s: result.elapsed_ms / 1000,
    nocache_ms: result.answer.nocache_ms.median,
    cache_ms: result.answer.cache_ms.median,
    cache_ratio: result.answer.ratio,
    identical_tokens: result.answer.identical_tokens,
    decode_1row_ctx64_ms: at(1, 64),
    decode_16rows_ctx64_ms: at(16, 64),
    rows16_gain_ctx64: (16 * at(1, 64)) / at(16, 64),
    continuous16_tokens_per_s: result.policies['continuous:16'].tokens_per_s,
  };
}

// The figures of one wasm build's bench() (the panel's result.simd or .scalar, or the CLI's).
function benchFigures(bench) {
  if (!bench) return null;
  const ctx64 = bench.decode.find((d) => d.context === 64);
  return {
    peak_gflops: bench.peak_gflops,
    read_gb_per_s: bench.read_gb_per_s,
    matvec_gflops: bench.matrix.matvec.gflops,
    matmul16_gflops: bench.matrix.matmul16.gflops,
    gemm_fraction_of_peak: bench.gemm_fraction_of_peak,
    decode_1row_ms: ctx64.rows1.median_ms,
    decode_16rows_ms: ctx64.rows16.median_ms,
    weights_gb_per_s: ctx64.rows1.gb_per_s,
    rows16_gain: ctx64.tokens_per_s_ratio,
  };
}

async function measureEngine(engine, server) {
  process.stderr.write(`engines: ${engine}...\n`);
  const browser = await startBrowser({}, engine);
  try {
    const { page, log } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 900 });
    const started = Date.now();
    await page.goto(`${server.url}index.html#autorun`);
    const lab = labFigures(await waitForResult(page, 180000));
    lab.lab_wall_s = (Date.now() - started) / 1000;
    await page.waitForFunction(() => window.kvlabMemoryResult || !document.getElementById('mem-error').hidden, null, {
      timeout: 120000,
      polling: 100,
    });

    await page.click('#simd-run');
    await page.waitForFunction(() => window.kvlabSimdResult || !document.getElementById('simd-error').hidden, null, {
      timeout: 300000,
      polling: 200,
    });
    const panel = await page.evaluate(() => window.kvlabSimdResult);
    if (!panel) throw new Error(`${engine}: the SIMD panel failed: ${await page.textContent('#simd-error')}`);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${engine}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(500);
    const overflow_px = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${engine}-390.png`), fullPage: true });
    await page.close();
    return {
      engine,
      lab,
      panel: {
        preset: panel.model.preset,
        simd_ms: panel.rows.simd.median_ms,
        scalar_ms: panel.rows.scalar.median_ms,
        js_ms: panel.rows.js.median_ms,
        ratios: panel.ratios,
        elapsed_s: panel.elapsed_ms / 1000,
      },
      simd: benchFigures(panel.simd),
      scalar: benchFigures(panel.scalar),
      phone_overflow_px: overflow_px,
      console_errors: log.errors,
    };
  } finally {
    await browser.close();
  }
}

// The same bench() of the wasm SIMD module under Node (the CLI compiled to wasm), for a third column.
function measureNode() {
  process.stderr.write('engines: Node (wasm SIMD)...\n');
  const cli = path.join(root, 'build/wasm/src/cli/kvlab-cli.js');
  const out = execFileSync(
    'node',
    ['--no-experimental-fetch', cli, 'bench', '--json', '--answer-runs', '0', '--no-simulator'],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] }
  );
  return { engine: 'node', version: process.version, simd: benchFigures(JSON.parse(out)) };
}

function table(result) {
  const f = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
  const columns = result.runs;
  const lines = [`kvlab in each engine, ${result.date}, ${result.machine}`, ''];
  const row = (label, pick, digits = 2, suffix = '') =>
    lines.push(
      label.padEnd(44) +
        columns
          .map((c) => {
            let value;
            try {
              value = pick(c);
            } catch (error) {
              value = undefined;
            }
            return (
              typeof value === 'string' ? value : `${f(value, digits)}${Number.isFinite(value) ? suffix : ''}`
            ).padStart(16);
          })
          .join('')
    );
  lines.push(
    ''.padEnd(44) +
      columns.map((c) => (c.lab ? c.lab.browser : `${c.engine} ${c.version}`).slice(0, 15).padStart(16)).join('')
  );
  row('clock on the page (ms)', (c) => c.lab.page_timer_ms, 3);
  row('clock in the worker (ms)', (c) => c.lab.worker_timer_ms, 3);
  row('shortest step sample (ms)', (c) => c.lab.min_sample_ms, 0);
  row('default lab, in the worker (s)', (c) => c.lab.lab_s, 1);
  row('Part A: no cache / KV cache (x)', (c) => c.lab.cache_ratio, 1);
  row('decode step, 1 row, context 64 (ms)', (c) => c.lab.decode_1row_ctx64_ms, 3);
  row('decode step, 16 rows, context 64 (ms)', (c) => c.lab.decode_16rows_ctx64_ms, 3);
  row('16 rows over 1 row, tokens/s (x)', (c) => c.lab.rows16_gain_ctx64, 2);
  row('continuous:16, tokens/s', (c) => c.lab.continuous16_tokens_per_s, 0);
  lines.push('', 'SIMD vs scalar vs JavaScript panel (decode step, 1 row, context 64)');
  row('wasm SIMD (ms)', (c) => c.panel.simd_ms, 3);
  row('wasm scalar (ms)', (c) => c.panel.scalar_ms, 3);
  row('plain JavaScript (ms)', (c) => c.panel.js_ms, 3);
  row('SIMD over scalar (x)', (c) => c.panel.ratios.simd_vs_scalar, 2);
  row('SIMD over JavaScript (x)', (c) => c.panel.ratios.simd_vs_js, 2);
  for (const build of ['simd', 'scalar']) {
    lines.push('', `bench() of the wasm ${build === 'simd' ? 'SIMD' : 'scalar'} build`);
    row('multiply-add peak (GFLOP/s)', (c) => c[build].peak_gflops, 1);
    row('read bandwidth, weights-sized (GB/s)', (c) => c[build].read_gb_per_s, 1);
    row('1-row step streams weights at (GB/s)', (c) => c[build].weights_gb_per_s, 1);
    row('matrix x 1 row (GFLOP/s)', (c) => c[build].matvec_gflops, 1);
    row('matrix x 16 rows (GFLOP/s)', (c) => c[build].matmul16_gflops, 1);
    row('16 rows / peak', (c) => 100 * c[build].gemm_fraction_of_peak, 0, '%');
    row(
      'decode 1 row / 16 rows, ctx 64 (ms)',
      (c) => `${f(c[build].decode_1row_ms, 2)}/${f(c[build].decode_16rows_ms, 1)}`
    );
  }
  return `${lines.join('\n')}\n`;
}

const options = parseArgs(process.argv.slice(2));
requireDist(['kvlab-scalar.js', 'kvlab-scalar.wasm']);
const server = await startServer();
const runs = [];
try {
  for (const engine of options.engines) runs.push(await measureEngine(engine, server));
} finally {
  await server.close();
}
if (options.node) runs.push(measureNode());
const cpu = (os.cpus()[0] || { model: 'unknown cpu' }).model.trim();
const result = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpu}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the end`,
  runs,
};
process.stdout.write(table(result));
for (const run of runs)
  if (run.console_errors && run.console_errors.length)
    console.log(`${run.engine} console errors: ${run.console_errors.join(' | ')}`);
console.log(`screenshots in ${path.relative(process.cwd(), SCREENSHOTS)}`);
if (options.out) fs.writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
