// Runs `kvlab lab --json` several times and prints the figures the lab's readers compare, one column a
// run, with how far apart the runs came out (largest / smallest - 1) and every figure that is missing,
// zero, infinite, or a 16-row step faster than one row (issue 52, docs/benchmarks.md).
//   node tools/lab_repeatability.mjs [--runs N] [--out FILE.json] [--kvlab PATH] [-- LAB FLAGS...]
// Wrap it in the timing lock; the caller makes the machine busy or quiet around it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split < 0 ? argv : argv.slice(0, split);
const labFlags = split < 0 ? [] : argv.slice(split + 1);
const option = (name, fallback) => (own.includes(name) ? own[own.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '3'));
const kvlab = option('--kvlab', path.join(root, 'build/native/src/cli/kvlab'));
const out = option('--out', null);

// The context the reports quote the batching gain at (the published lab's 64).
const GAIN_CONTEXT = 64;
const POLICIES = ['serial-nocache', 'serial-cache', 'static:16', 'continuous:16'];

function figures(result) {
  const decode = result.steps.decode;
  const j = decode.contexts.indexOf(GAIN_CONTEXT);
  const last = decode.rows.length - 1;
  const row = {
    one_row_ms: decode.ms[0][j],
    sixteen_rows_ms: decode.ms[last][j],
    cache_speedup: result.answer.ratio,
  };
  for (const name of POLICIES) row[`median_ttft_s ${name}`] = result.policies[name]?.median_ttft_ms / 1000;
  return row;
}

// What must never reach a table: a missing, zero, NaN or infinite figure, a 16-row step faster than one.
function problems(result, row) {
  const found = [];
  for (const [name, value] of Object.entries(row))
    if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) found.push(`${name} = ${value}`);
  for (const [name, metrics] of Object.entries(result.policies))
    for (const key of ['makespan_ms', 'median_ttft_ms', 'tokens_per_s'])
      if (!(typeof metrics[key] === 'number' && Number.isFinite(metrics[key]) && metrics[key] > 0))
        found.push(`${name}.${key} = ${metrics[key]}`);
  if (row.sixteen_rows_ms < row.one_row_ms) found.push('16-row step faster than one row');
  return found;
}

const results = [];
for (let run = 0; run < runs; ++run) {
  const started = Date.now();
  const text = execFileSync(kvlab, ['lab', '--json', ...labFlags], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const result = JSON.parse(text);
  const row = figures(result);
  results.push({
    run: run + 1,
    seconds: (Date.now() - started) / 1000,
    figures: row,
    problems: problems(result, row),
    noisy: result.noisy ?? null,
    noisy_cells: result.steps.model.timing.noisy_cells ?? null,
    retimed_cells: result.steps.model.timing.retimed_cells ?? null,
  });
}

const names = Object.keys(results[0].figures);
const apart = {};
const lines = [['figure', ...results.map((r) => `run ${r.run}`), 'apart'].join('\t')];
for (const name of names) {
  const values = results.map((r) => r.figures[name]);
  apart[name] = Math.max(...values) / Math.min(...values) - 1;
  lines.push(
    [
      name,
      ...values.map((v) => (typeof v === 'number' ? v.toPrecision(4) : String(v))),
      `${(100 * apart[name]).toFixed(1)}%`,
    ].join('\t')
  );
}
lines.push(['noisy', ...results.map((r) => String(r.noisy)), ''].join('\t'));
lines.push(['retimed cells', ...results.map((r) => String(r.retimed_cells)), ''].join('\t'));
lines.push(['problems', ...results.map((r) => r.problems.join('; ') || 'none'), ''].join('\t'));
console.log(lines.join('\n'));
if (out) fs.writeFileSync(out, JSON.stringify({ lab_flags: labFlags, kvlab, runs: results, apart }, null, 2) + '\n');
