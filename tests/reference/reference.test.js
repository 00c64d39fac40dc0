// The plain-JavaScript reference (web/reference/model.js) against the wasm module: same weights,
// same greedy tokens; and the shape of its timing and FLOP helpers. No timing assertions.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const wasmDir = path.join(root, 'build/wasm/src/wasm');
const reference = require(path.join(root, 'web/reference/model.js'));

function loadModule() {
  const js = path.join(wasmDir, 'kvlab.js'),
    wasm = path.join(wasmDir, 'kvlab.wasm');
  if (!fs.existsSync(js) || !fs.existsSync(wasm))
    throw new Error(`the wasm module is not built (${js} / ${wasm} missing): run scripts/build first`);
  // Emscripten's glue would fetch() the .wasm under Node: hand it the bytes.
  return require(js)({ wasmBinary: fs.readFileSync(wasm) });
}

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

function measureAnswer(preset, answerTokens) {
  const options = {
    runs: 1,
    answer_tokens: answerTokens,
    decode_rows: [1],
    decode_contexts: [8],
    prefill_tokens: [4],
    min_sample_ms: 0.1,
    samples: 1,
  };
  if (preset) options.preset = preset;
  return kvlab.measure(options).answer;
}

test("tiny preset: the reference generates the wasm module's tokens", () => {
  const answer = measureAnswer('tiny', 12);
  const model = reference.createModel(kvlab.exportWeights({ preset: 'tiny' }));
  assert.deepEqual(model.generate(Array.from(answer.prompt), 12), Array.from(answer.tokens_cache));
});

test("default preset: the reference generates the wasm module's tokens", () => {
  const answer = measureAnswer(null, 8);
  const weights = kvlab.exportWeights({});
  assert.equal(weights.config.d_model, 384, 'the default model is "small"');
  const model = reference.createModel(weights);
  assert.deepEqual(model.generate(Array.from(answer.prompt), 8), Array.from(answer.tokens_cache));
});

test('step over one cache equals a fresh cache refilled to the same position', () => {
  const model = reference.createModel(kvlab.exportWeights({ preset: 'tiny' }));
  const tokens = [5, 9, 2, 40];
  const a = model.newCache();
  let last;
  for (let p = 0; p < tokens.length; p++) last = model.step(a, tokens[p], p);
  const b = model.newCache();
  for (let p = 0; p < tokens.length - 1; p++) model.step(b, tokens[p], p);
  assert.deepEqual(model.step(b, tokens[3], 3), last);
  assert.equal(last.length, 64);
  assert.ok(last.every(Number.isFinite));
});

test('timeDecodeStep returns finite positive numbers and the requested sample count', () => {
  const model = reference.createModel(kvlab.exportWeights({ preset: 'tiny' }));
  const t = reference.timeDecodeStep(model, 16, { minSampleMs: 1, samples: 3 });
  assert.equal(t.samples, 3);
  for (const key of ['median_ms', 'min_ms', 'max_ms', 'repeats']) {
    assert.ok(Number.isFinite(t[key]) && t[key] > 0, `${key} = ${t[key]}`);
  }
  assert.ok(Number.isInteger(t.repeats));
  assert.ok(t.min_ms <= t.median_ms && t.median_ms <= t.max_ms);
});

test('decodeStepFlops on the tiny config, by hand', () => {
  const tiny = { vocab: 64, d_model: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, d_ff: 64, max_seq: 160 };
  // per layer: wq 32x32 + wk 16x32 + wv 16x32 + wo 32x32 = 3072 MACs; gate, up 64x32 + down 32x64 = 6144
  // two layers: 18432 MACs; w_out 64x32 = 2048; total 20480 MACs = 40960 FLOPs
  // attention at context 10: 2 layers x 2 x 2 x 4 heads x 8 x 10 = 2560
  assert.equal(reference.decodeStepFlops(tiny, 10), 40960 + 2560);
  assert.equal(reference.decodeStepFlops(tiny, 0), 40960);
  // head_dim derived when absent
  const { head_dim, ...noHeadDim } = tiny;
  assert.equal(reference.decodeStepFlops(noHeadDim, 10), 40960 + 2560);
});
