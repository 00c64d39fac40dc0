// Runs `kvlab bench` in every build (native, wasm SIMD, wasm scalar, wasm threads) and the plain-JS reference one
// after another on the same machine, then prints one table with the ratios measured side by side.
// Called by scripts/bench; flags: --json (print the object), --save (also write docs/bench/).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = new Set(process.argv.slice(2));
for (const arg of args) {
  if (!['--json', '--save', '--no-build'].includes(arg)) {
    process.stderr.write(`scripts/bench: unknown flag ${arg} (known: --json, --save, --no-build)\n`);
    process.exit(2);
  }
}

function run(label, command, commandArgs) {
  process.stderr.write(`bench: ${label}...\n`);
  const out = execFileSync(command, commandArgs, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out);
}
const node = (script, ...rest) => ['--no-experimental-fetch', path.join(root, script), ...rest];

// The native build also times the forward pass on 1, 2, 4 .. as many threads as the machine offers
// (--thread-scaling; every other figure is one thread's). The two SIMD builds also time the one-row step with f32 and bf16 weights interleaved (half the bytes
// to stream, so about half the time if the step is bound by memory), and 1- and 16-row steps at
// context 64 and the longest with the KV cache in f32, bf16 and f16, interleaved.
const native = run('native xsimd', path.join(root, 'build/native/src/cli/kvlab'), [
  'bench',
  '--json',
  '--weight-formats',
  '--kv-formats',
  '--thread-scaling',
]);
const wasmSimd = run(
  'wasm SIMD (Node)',
  'node',
  node('build/wasm/src/cli/kvlab-cli.js', 'bench', '--json', '--weight-formats', '--kv-formats')
);
const wasmScalar = run(
  'wasm scalar (Node)',
  'node',
  node('build/wasm-scalar/src/cli/kvlab-cli.js', 'bench', '--json', '--answer-runs', '1', '--no-simulator')
);
// The same thread scaling in the threaded wasm module (build/wasm-threads), under Node.
const wasmThreads = run('wasm SIMD with threads (Node)', 'node', [
  path.join(root, 'tools/bench_threads_wasm.js'),
]).thread_scaling;
const js = run('plain JavaScript (Node)', 'node', [path.join(root, 'web/reference/bench.js')]).js_decode_ctx64;

// The same step on a model that fits in cache (the `lab` preset, 0.6 MB): bound by arithmetic, not
// by memory, so it shows what SIMD buys when bandwidth does not cap it.
const quick = ['bench', '--json', '--preset', 'lab', '--answer-runs', '0', '--no-simulator'];
const inCache = {
  native: run('in-cache model: native', path.join(root, 'build/native/src/cli/kvlab'), quick),
  wasm_simd: run('in-cache model: wasm SIMD', 'node', node('build/wasm/src/cli/kvlab-cli.js', ...quick)),
  wasm_scalar: run('in-cache model: wasm scalar', 'node', node('build/wasm-scalar/src/cli/kvlab-cli.js', ...quick)),
  js: run('in-cache model: plain JavaScript', 'node', [path.join(root, 'web/reference/bench.js'), '--preset', 'lab'])
    .js_decode_ctx64,
};

// The real model (its speed targets, docs/results.md): stories15M natively and in wasm SIMD, its weights in f32 and
// bf16 timed interleaved, beside llama2.c's own build of it (the package's llama2.wasm, scalar code).
const storiesArgs = [
  'bench',
  '--json',
  '--model',
  'stories15M',
  '--weight-formats',
  '--answer-runs',
  '0',
  '--no-simulator',
];
const stories = {
  native: run('stories15M: native', path.join(root, 'build/native/src/cli/kvlab'), storiesArgs),
  wasm_simd: run('stories15M: wasm SIMD', 'node', node('build/wasm/src/cli/kvlab-cli.js', ...storiesArgs)),
  llama2c: run('stories15M: llama2.c (llama2.wasm, Node)', 'node', [path.join(root, 'tools/llama2c_speed.js')]),
};

// The GGUF block formats (Q8_0, Q4_0, Q5_0, Q4_K ...) beside f32 and bf16 on the medium preset, whose 105 MB
// of f32 weights do not fit in cache: the one-row step streams its weights, so fewer bytes a weight
// should be fewer milliseconds, as far as unpacking the blocks keeps up with memory.
const quantizedArgs = [
  'bench',
  '--json',
  '--preset',
  'medium',
  '--weight-formats',
  '--answer-runs',
  '0',
  '--no-simulator',
];
const quantized = {
  native: run('quantized weights, medium: native', path.join(root, 'build/native/src/cli/kvlab'), quantizedArgs)
    .weight_formats,
  wasm_simd: run(
    'quantized weights, medium: wasm SIMD',
    'node',
    node('build/wasm/src/cli/kvlab-cli.js', ...quantizedArgs)
  ).weight_formats,
};

const ctx64 = (result) => result.decode.find((d) => d.context === 64).rows1;
// A KV-format cell at the longest context the preset allows.
const kvLong = (result, rows) => {
  const k = result.kv_formats;
  return k.cells.find((c) => c.context === k.contexts[k.contexts.length - 1] && c.rows === rows);
};
const gain = (result, context) => result.decode.find((d) => d.context === context).tokens_per_s_ratio;
const ratios = {
  simd_vs_scalar: ctx64(wasmScalar).median_ms / ctx64(wasmSimd).median_ms,
  simd_vs_js: js.median_ms / ctx64(wasmSimd).median_ms,
  wasm_vs_native: ctx64(native).median_ms / ctx64(wasmSimd).median_ms,
  rows16_vs_rows1_ctx64_wasm: gain(wasmSimd, 64),
  rows16_vs_rows1_ctx64_native: gain(native, 64),
  gemm_fraction_of_peak: native.gemm_fraction_of_peak,
  gemm_fraction_of_peak_wasm: wasmSimd.gemm_fraction_of_peak,
  // Each build against the limits it measured itself (the kernels' targets, docs/benchmarks.md): the one-row step's weight
  // streaming over the read bandwidth, the 16-row step's GFLOP/s over the multiply-add peak.
  native_decode_fraction_of_bandwidth: native.decode_fraction_of_bandwidth,
  wasm_decode_fraction_of_bandwidth: wasmSimd.decode_fraction_of_bandwidth,
  // The same for the step's weight matrices alone (no attention, norms, calls between them).
  native_matrices_fraction_of_bandwidth: native.matrices_fraction_of_bandwidth,
  wasm_matrices_fraction_of_bandwidth: wasmSimd.matrices_fraction_of_bandwidth,
  wasm_rows16_fraction_of_peak: wasmSimd.rows16_fraction_of_peak,
  bf16_over_f32_step_native: native.weight_formats.bf16_over_f32,
  bf16_over_f32_step_wasm: wasmSimd.weight_formats.bf16_over_f32,
  // 16 rows at the longest context, bf16 KV over f32 KV (the step's KV reads halve; the weights do not).
  kv16_over_f32_step_native: kvLong(native, 16).bf16_over_f32,
  kv16_over_f32_step_wasm: kvLong(wasmSimd, 16).bf16_over_f32,
  kv_f16_over_f32_step_native: kvLong(native, 16).f16_over_f32,
  kv_f16_over_f32_step_wasm: kvLong(wasmSimd, 16).f16_over_f32,
  in_cache_simd_vs_scalar: ctx64(inCache.wasm_scalar).median_ms / ctx64(inCache.wasm_simd).median_ms,
  in_cache_simd_vs_js: inCache.js.median_ms / ctx64(inCache.wasm_simd).median_ms,
  in_cache_wasm_vs_native: ctx64(inCache.native).median_ms / ctx64(inCache.wasm_simd).median_ms,
};
// Each build's stories15M figures against its targets: one f32 row at 0.9 of the read bandwidth, bf16
// at 1.7x the f32 tokens/s, 16 rows at 0.75 of the multiply-add peak.
const storiesTargets = (r) => ({
  rows1_f32_tokens_per_s: r.weight_formats.f32.tokens_per_s.rows1,
  rows16_f32_tokens_per_s: r.weight_formats.f32.tokens_per_s.rows16,
  rows1_bf16_tokens_per_s: r.weight_formats.bf16.tokens_per_s.rows1,
  rows16_bf16_tokens_per_s: r.weight_formats.bf16.tokens_per_s.rows16,
  rows1_fraction_of_bandwidth: r.decode_fraction_of_bandwidth,
  bf16_speedup: r.weight_formats.bf16.tokens_per_s.rows1 / r.weight_formats.f32.tokens_per_s.rows1,
  rows16_fraction_of_peak: r.rows16_fraction_of_peak,
  vs_llama2c: r.weight_formats.f32.tokens_per_s.rows1 / stories.llama2c.tokens_per_s,
});
ratios.stories15m = { native: storiesTargets(stories.native), wasm_simd: storiesTargets(stories.wasm_simd) };
const cpu = (os.cpus()[0] || { model: 'unknown cpu' }).model.trim();
const result = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  native,
  wasm_simd: wasmSimd,
  wasm_scalar: wasmScalar,
  wasm_threads: wasmThreads,
  js,
  in_cache: inCache,
  stories15m: stories,
  quantized,
  ratios,
};

function table() {
  const f = (x, digits = 2) => x.toFixed(digits);
  const pct = (fraction) => `${f(100 * fraction, 0)}%`;
  const ctx64rows16 = (result) => result.decode.find((d) => d.context === 64).rows16;
  const lines = [];
  const rowOf = (name, t) =>
    `${name.padEnd(24)}${f(t.median_ms, 3).padStart(10)}${f(t.min_ms, 3).padStart(10)}${f(t.max_ms, 3).padStart(10)}${f(t.gflops, 1).padStart(10)}`;
  lines.push(`kvlab bench, ${result.date}, ${result.machine}`);
  lines.push(`native build: ${native.instruction_set}, KVLAB_ARCH=${native.kvlab_arch}`);
  lines.push(
    `model: ${native.model.preset}, ${(native.model.parameters / 1e6).toFixed(1)} M parameters, ${(native.model.weight_bytes / 1e6).toFixed(1)} MB of weights`
  );
  lines.push('');
  lines.push('1. decode step, 1 row, context 64');
  lines.push(
    `${'build'.padEnd(24)}${'median ms'.padStart(10)}${'min ms'.padStart(10)}${'max ms'.padStart(10)}${'GFLOP/s'.padStart(10)}`
  );
  lines.push(rowOf(`native (${native.instruction_set})`, ctx64(native)));
  lines.push(rowOf('wasm SIMD (Node)', ctx64(wasmSimd)));
  lines.push(rowOf('wasm scalar (Node)', ctx64(wasmScalar)));
  lines.push(rowOf('plain JavaScript (Node)', js));
  lines.push(
    `wasm SIMD vs wasm scalar ${f(ratios.simd_vs_scalar)}x, vs JavaScript ${f(ratios.simd_vs_js)}x; wasm SIMD speed / native speed ${f(ratios.wasm_vs_native)}`
  );
  lines.push(
    `one row streams the ${f(ctx64(native).bytes_read / 1e6, 1)} MB it reads at: native ${f(ctx64(native).gb_per_s, 1)} GB/s, wasm SIMD ${f(ctx64(wasmSimd).gb_per_s, 1)} GB/s (read bandwidth over the weights' size, same rounds: native ${f(native.read_gb_per_s, 1)}, wasm ${f(wasmSimd.read_gb_per_s, 1)} GB/s)`
  );
  lines.push(
    `streaming / read bandwidth: native ${pct(ratios.native_decode_fraction_of_bandwidth)}, wasm SIMD ${pct(ratios.wasm_decode_fraction_of_bandwidth)}; the weight matrices alone: native ${pct(ratios.native_matrices_fraction_of_bandwidth)}, wasm SIMD ${pct(ratios.wasm_matrices_fraction_of_bandwidth)}`
  );
  lines.push('');
  lines.push(
    `1b. the same step on the in-cache model (preset lab, ${(inCache.native.model.weight_bytes / 1e6).toFixed(1)} MB of weights)`
  );
  lines.push(rowOf(`native (${inCache.native.instruction_set})`, ctx64(inCache.native)));
  lines.push(rowOf('wasm SIMD (Node)', ctx64(inCache.wasm_simd)));
  lines.push(rowOf('wasm scalar (Node)', ctx64(inCache.wasm_scalar)));
  lines.push(rowOf('plain JavaScript (Node)', inCache.js));
  lines.push(
    `wasm SIMD vs wasm scalar ${f(ratios.in_cache_simd_vs_scalar)}x, vs JavaScript ${f(ratios.in_cache_simd_vs_js)}x; wasm SIMD speed / native speed ${f(ratios.in_cache_wasm_vs_native)}`
  );
  lines.push('');
  const formats = (r) => r.weight_formats;
  lines.push(
    `1c. the same step with bf16 weights (${(formats(native).bf16.weight_bytes / 1e6).toFixed(1)} MB instead of ${(formats(native).f32.weight_bytes / 1e6).toFixed(1)} MB), f32 and bf16 timed interleaved`
  );
  lines.push(
    `${'build'.padEnd(24)}${'f32 ms'.padStart(10)}${'bf16 ms'.padStart(10)}${'bf16/f32'.padStart(10)}${'bf16 GB/s'.padStart(11)}`
  );
  for (const [name, r] of [
    [`native (${native.instruction_set})`, native],
    ['wasm SIMD (Node)', wasmSimd],
  ]) {
    const w = formats(r);
    lines.push(
      `${name.padEnd(24)}${f(w.f32.median_ms, 3).padStart(10)}${f(w.bf16.median_ms, 3).padStart(10)}${f(w.bf16_over_f32).padStart(10)}${f(w.bf16.gb_per_s, 1).padStart(11)}`
    );
  }
  lines.push('(0.50 would be exactly half the time)');
  lines.push('');
  lines.push(
    `1e. the medium preset's weights in each format, one thread, context ${quantized.native.context}: one row's step, timed interleaved with a read of a weights-sized buffer`
  );
  lines.push(
    `${'build'.padEnd(24)}${'format'.padStart(7)}${'MB'.padStart(7)}${'1 row ms'.padStart(10)}${'GB/s'.padStart(7)}${'of read'.padStart(9)}${'tokens/s'.padStart(10)}${'x f32'.padStart(7)}`
  );
  for (const [name, w] of [
    [`native (${native.instruction_set})`, quantized.native],
    ['wasm SIMD (Node)', quantized.wasm_simd],
  ]) {
    // Every format the bench timed (the block formats are the module's, block_format.h): f32 and bf16 first.
    const first = (format) => ['f32', 'bf16'].indexOf(format) >>> 0;
    const timed = Object.entries(w).filter(([, q]) => q && q.weight_bytes !== undefined);
    for (const [format, q] of timed.sort(([a], [b]) => first(a) - first(b))) {
      lines.push(
        `${name.padEnd(24)}${format.padStart(7)}${f(q.weight_bytes / 1e6, 1).padStart(7)}${f(q.median_ms, 3).padStart(10)}${f(q.gb_per_s, 1).padStart(7)}${pct(q.fraction_of_read_bandwidth).padStart(9)}${f(q.tokens_per_s.rows1, 0).padStart(10)}${f(q.rows1_tokens_per_s_over_f32).padStart(7)}`
      );
    }
  }
  lines.push('(targets: Q4_0 at 3x the f32 tokens/s and 80% of the read bandwidth)');
  lines.push('');
  const kvBytes = native.kv_formats.kv_bytes_per_token;
  lines.push(
    `1d. decode steps with a 16-bit KV cache (${kvBytes.bf16} bytes a token instead of ${kvBytes.f32}), f32, bf16 and f16 KV timed interleaved`
  );
  lines.push(
    `${'build'.padEnd(24)}${'context'.padStart(8)}${'rows'.padStart(6)}${'f32 ms'.padStart(10)}${'bf16 ms'.padStart(10)}${'f16 ms'.padStart(10)}${'bf16/f32'.padStart(10)}${'f16/f32'.padStart(10)}`
  );
  for (const [name, r] of [
    [`native (${native.instruction_set})`, native],
    ['wasm SIMD (Node)', wasmSimd],
  ]) {
    for (const c of r.kv_formats.cells) {
      lines.push(
        `${name.padEnd(24)}${String(c.context).padStart(8)}${String(c.rows).padStart(6)}${f(c.f32.median_ms, 3).padStart(10)}${f(c.bf16.median_ms, 3).padStart(10)}${f(c.f16.median_ms, 3).padStart(10)}${f(c.bf16_over_f32).padStart(10)}${f(c.f16_over_f32).padStart(10)}`
      );
    }
  }
  lines.push('');
  lines.push('2. decode throughput, 16 rows over 1 row (tokens/s ratio)');
  lines.push(
    `${'context'.padEnd(10)}${'native'.padStart(10)}${'wasm SIMD'.padStart(12)}${'wasm 1 row ms'.padStart(15)}${'wasm 16 rows ms'.padStart(17)}`
  );
  for (const context of [16, 64, 128]) {
    const w = wasmSimd.decode.find((d) => d.context === context);
    lines.push(
      `${String(context).padEnd(10)}${(f(gain(native, context)) + 'x').padStart(10)}${(f(w.tokens_per_s_ratio) + 'x').padStart(12)}${f(w.rows1.median_ms, 3).padStart(15)}${f(w.rows16.median_ms, 3).padStart(17)}`
    );
  }
  lines.push(
    `wasm SIMD 16-row step at context 64: ${f(ctx64rows16(wasmSimd).gflops, 1)} GFLOP/s, ${pct(ratios.wasm_rows16_fraction_of_peak)} of its multiply-add peak`
  );
  lines.push('');
  const m = native.matrix.matrix;
  lines.push(
    `3. matrix kernels (${m.n_out}x${m.n_in}, ${(m.bytes / 1e6).toFixed(2)} MB), GFLOP/s against the measured multiply-add peak`
  );
  lines.push(
    `${'build'.padEnd(24)}${'peak'.padStart(10)}${'1 row'.padStart(10)}${'16 rows'.padStart(10)}${'16 rows/peak'.padStart(14)}`
  );
  for (const [name, r] of [
    ['native', native],
    ['wasm SIMD', wasmSimd],
    ['wasm scalar', wasmScalar],
  ]) {
    lines.push(
      `${name.padEnd(24)}${f(r.peak_gflops, 1).padStart(10)}${f(r.matrix.matvec.gflops, 1).padStart(10)}${f(r.matrix.matmul16.gflops, 1).padStart(10)}${(f(100 * r.gemm_fraction_of_peak, 0) + '%').padStart(14)}`
    );
  }
  lines.push('');
  lines.push('4. one answer (prompt 16, answer 48), median of runs');
  for (const [name, r] of [
    ['native', native],
    ['wasm SIMD', wasmSimd],
    ['wasm scalar (1 run)', wasmScalar],
  ]) {
    const a = r.answer;
    lines.push(
      `${name.padEnd(24)}no cache ${f(a.nocache_ms.median).padStart(9)} ms   KV cache ${f(a.cache_ms.median).padStart(8)} ms   ${f(a.ratio, 1)}x   ${a.identical_tokens ? 'identical tokens' : 'TOKENS DIFFER'}`
    );
  }
  lines.push('');
  lines.push('5. simulator');
  for (const [name, r] of [
    ['native', native],
    ['wasm SIMD', wasmSimd],
  ]) {
    const s = r.simulator;
    lines.push(
      `${name.padEnd(24)}1,000 requests x 4 policies ${f(s.lab_queue_4_policies_ms.median, 1)} ms (first call ${f(s.lab_queue_4_policies_ms.first_call, 1)} ms); 100,000 requests continuous:16 ${f(s.requests_100000_continuous16_ms, 0)} ms, ${Math.round(s.requests_per_s)} requests/s, ${(s.simulated_steps_per_s / 1e6).toFixed(2)} M steps/s`
    );
  }
  lines.push('');
  const s = native.thread_scaling;
  lines.push(
    `6. threads: speed-up over one thread (context ${s.context}; ${s.prefill_tokens}-token prefill; ${s.forks_per_step} forks and joins a step)`
  );
  lines.push(
    `${'build'.padEnd(24)}${'threads'.padStart(8)}${'1 row'.padStart(9)}${'16 rows'.padStart(9)}${'prefill'.padStart(9)}${'fork+join us'.padStart(14)}${'read GB/s'.padStart(11)}${'1 row GB/s'.padStart(12)}`
  );
  for (const [name, t] of [
    ['native', s],
    ['wasm SIMD (Node)', wasmThreads],
  ]) {
    t.counts.forEach((count, k) => {
      lines.push(
        `${name.padEnd(24)}${String(count).padStart(8)}${(f(t.rows1_speedup[k]) + 'x').padStart(9)}${(f(t.rows16_speedup[k]) + 'x').padStart(9)}${(f(t.prefill_speedup[k]) + 'x').padStart(9)}${f(t.fork_join_us[k]).padStart(14)}${f(t.read_gb_per_s[k], 1).padStart(11)}${f(t.rows1_gb_per_s[k], 1).padStart(12)}`
      );
    });
  }
  lines.push('');
  lines.push(
    `7. stories15M (${(stories.native.model.parameters / 1e6).toFixed(1)} M parameters, a real model), decode at context ${stories.native.weight_formats.context}: tokens/s, f32 and bf16 weights interleaved`
  );
  lines.push(
    `${'build'.padEnd(24)}${'1 row f32'.padStart(11)}${'1 row bf16'.padStart(12)}${'16 rows f32'.padStart(13)}${'16 rows bf16'.padStart(14)}`
  );
  for (const [name, key] of [
    [`native (${native.instruction_set})`, 'native'],
    ['wasm SIMD (Node)', 'wasm_simd'],
  ]) {
    const t = ratios.stories15m[key];
    lines.push(
      `${name.padEnd(24)}${f(t.rows1_f32_tokens_per_s, 1).padStart(11)}${f(t.rows1_bf16_tokens_per_s, 1).padStart(12)}${f(t.rows16_f32_tokens_per_s, 1).padStart(13)}${f(t.rows16_bf16_tokens_per_s, 1).padStart(14)}`
    );
  }
  lines.push(
    `${'llama2.c (llama2.wasm)'.padEnd(24)}${f(stories.llama2c.tokens_per_s, 1).padStart(11)}   (its own build in the npm package: scalar wasm, one row, context ${stories.llama2c.context})`
  );
  lines.push(`${'target'.padEnd(24)}${'native'.padStart(10)}${'wasm SIMD'.padStart(12)}`);
  for (const [label, key, target] of [
    ['1 row f32 / read bw', 'rows1_fraction_of_bandwidth', 0.9],
    ['bf16 / f32 tokens/s', 'bf16_speedup', 1.7],
    ['16 rows / SIMD peak', 'rows16_fraction_of_peak', 0.75],
  ]) {
    const mark = (x) => `${f(x)}${x >= target ? '' : '*'}`;
    lines.push(
      `${`${label} >= ${target}`.padEnd(24)}${mark(ratios.stories15m.native[key]).padStart(10)}${mark(ratios.stories15m.wasm_simd[key]).padStart(12)}`
    );
  }
  lines.push(
    `(* short of the target; docs/real-model.md says why) 1 row f32 over llama2.c: native ${f(ratios.stories15m.native.vs_llama2c, 1)}x, wasm SIMD ${f(ratios.stories15m.wasm_simd.vs_llama2c, 1)}x`
  );
  return lines.join('\n') + '\n';
}

const text = table();
process.stdout.write(args.has('--json') ? JSON.stringify(result, null, 2) + '\n' : text);
if (args.has('--save')) {
  const dir = path.join(root, 'docs/bench');
  fs.mkdirSync(dir, { recursive: true });
  const slug = `${result.date}-${cpu
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${os.cpus().length}core`;
  fs.writeFileSync(path.join(dir, `${slug}.txt`), text);
  fs.writeFileSync(path.join(dir, `${slug}.json`), JSON.stringify(result, null, 2) + '\n');
  process.stderr.write(`bench: saved docs/bench/${slug}.txt and .json\n`);
}
