#!/usr/bin/env node
// The plain-JavaScript decode step of the default model (or `--preset NAME`), one row at context 64,
// timed in Node. Prints one JSON object on stdout and nothing else:
//   { "js_decode_ctx64": { median_ms, min_ms, max_ms, repeats, samples, gflops } }
// (gflops from the median). Called by scripts/bench.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const reference = require('./model.js');

const wasmDir = path.resolve(__dirname, '../../build/wasm/src/wasm');
const CONTEXT = 64;

async function main() {
  const js = path.join(wasmDir, 'kvlab.js'),
    wasm = path.join(wasmDir, 'kvlab.wasm');
  if (!fs.existsSync(js) || !fs.existsSync(wasm)) {
    process.stderr.write(`web/reference/bench.js: the wasm module is not built (${js}): run scripts/build first\n`);
    process.exit(1);
  }
  const kvlab = await require(js)({ wasmBinary: fs.readFileSync(wasm) });
  const presetAt = process.argv.indexOf('--preset');
  const weights = kvlab.exportWeights(presetAt > 0 ? { preset: process.argv[presetAt + 1] } : {});
  const model = reference.createModel(weights);
  const t = reference.timeDecodeStep(model, CONTEXT, { minSampleMs: 20, samples: 5 });
  const flops = reference.decodeStepFlops(weights.config, CONTEXT);
  t.gflops = flops / (t.median_ms * 1e6);
  process.stdout.write(JSON.stringify({ js_decode_ctx64: t }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`web/reference/bench.js: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
