// The Embind module under Node: the contract's shapes, errors that name the field, and no corruption
// after many failed calls.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallMeasure } = require('./helpers');

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

function assertPositiveFinite(value, what) {
  assert.equal(typeof value, 'number', what);
  assert.ok(Number.isFinite(value) && value > 0, `${what} = ${value}`);
}

test('measure returns the contract shape with finite positive numbers', () => {
  const phases = new Set();
  let last = 0;
  const result = kvlab.measure(smallMeasure, (fraction, phase) => {
    assert.ok(fraction >= last, 'progress never goes back');
    last = fraction;
    phases.add(phase);
  });
  const { answer, steps } = result;
  assert.equal(answer.prompt_tokens, 16);
  assert.equal(answer.answer_tokens, 12);
  assert.equal(answer.runs, 2);
  for (const key of ['nocache_ms', 'cache_ms']) {
    for (const stat of ['median', 'min', 'max']) assertPositiveFinite(answer[key][stat], `${key}.${stat}`);
  }
  assertPositiveFinite(answer.ratio, 'ratio');
  assert.equal(answer.identical_tokens, true);
  assert.deepEqual(answer.tokens_cache, answer.tokens_nocache);
  assert.equal(answer.tokens_cache.length, 12);

  assert.deepEqual(steps.decode.rows, [1, 3]);
  assert.deepEqual(steps.decode.contexts, [4, 20]);
  assert.equal(steps.decode.ms.length, 2);
  steps.decode.ms.flat().forEach((ms) => assertPositiveFinite(ms, 'decode.ms'));
  assert.deepEqual(steps.prefill.tokens, [1, 5, 20]);
  steps.prefill.ms.forEach((ms) => assertPositiveFinite(ms, 'prefill.ms'));
  assert.equal(steps.model.instruction_set, 'wasm simd128');
  assert.equal(last, 1);
  for (const phase of ['no-cache answers', 'KV-cache answers', 'step grid']) assert.ok(phases.has(phase), phase);
});

test('modelInfo follows the KV formula and version is a string', () => {
  const info = kvlab.modelInfo({ preset: 'tiny' });
  assert.equal(info.kv_bytes_per_token, 2 * info.n_layers * info.n_kv_heads * info.head_dim * 4);
  assert.equal(info.weight_bytes, 4 * info.parameters);
  assert.match(kvlab.version(), /^\d+\.\d+\.\d+$/);
});

test('bench reports the step against the limits the same build measured', () => {
  const result = kvlab.bench({
    measure: { preset: 'tiny', min_sample_ms: 0.2, samples: 1 },
    answer_runs: 0,
    simulator: false,
    weight_formats: true,
  });
  for (const key of ['read_gb_per_s', 'peak_gflops', 'decode_fraction_of_bandwidth', 'rows16_fraction_of_peak'])
    assertPositiveFinite(result[key], key);
  const at64 = result.decode.find((d) => d.context === 64);
  assert.equal(result.decode_fraction_of_bandwidth, at64.rows1.gb_per_s / result.read_gb_per_s);
  assert.equal(result.rows16_fraction_of_peak, at64.rows16.gflops / result.peak_gflops);
  // The step reads every weight but only one row of the embedding table, and the context's keys and values.
  const info = kvlab.modelInfo({ preset: 'tiny' });
  assert.equal(
    at64.rows1.bytes_read,
    info.weight_bytes - (info.vocab - 1) * info.d_model * 4 + 64 * info.kv_bytes_per_token
  );
  assert.equal(result.matrices_fraction_of_bandwidth, result.matrices_rows1.gb_per_s / result.read_gb_per_s);
  const formats = result.weight_formats;
  assert.equal(formats.context, 64);
  for (const format of ['f32', 'bf16'])
    for (const key of ['median_ms', 'gb_per_s']) assertPositiveFinite(formats[format][key], `${format}.${key}`);
  assert.ok(formats.bf16.weight_bytes < formats.f32.weight_bytes);
  assert.equal(formats.bf16_over_f32, formats.bf16.median_ms / formats.f32.median_ms);
});

test('modelInfo counts bf16 weight bytes: the matrices in 2 bytes, embedding and norms in 4', () => {
  const f32 = kvlab.modelInfo({ preset: 'tiny' });
  const bf16 = kvlab.modelInfo({ preset: 'tiny', weights: 'bf16' });
  assert.equal(f32.weights, 'f32');
  assert.equal(bf16.weights, 'bf16');
  const floats = f32.n_layers * 2 * f32.d_model + f32.vocab * f32.d_model + f32.d_model;
  assert.equal(bf16.weight_bytes, (f32.parameters - floats) * 2 + floats * 4);
  assert.equal(bf16.kv_bytes_per_token, f32.kv_bytes_per_token);
});

test('modelInfo counts KV bytes per token at 2 bytes a number in bf16 and f16, the weights unchanged', () => {
  const f32 = kvlab.modelInfo({ preset: 'small' });
  assert.equal(f32.kv, 'f32');
  assert.equal(f32.kv_bytes_per_token, 2 * f32.n_layers * f32.n_kv_heads * f32.head_dim * 4);
  for (const kv of ['bf16', 'f16']) {
    const half = kvlab.modelInfo({ preset: 'small', kv, weights: 'bf16' });
    assert.equal(half.kv, kv);
    assert.equal(half.kv_bytes_per_token, f32.kv_bytes_per_token / 2);
    assert.equal(half.weight_bytes, kvlab.modelInfo({ preset: 'small', weights: 'bf16' }).weight_bytes);
  }
});

test('a KV budget in bytes holds twice the tokens with a 16-bit KV cache', () => {
  const workload = { count: 8, prompt: [8, 8], answer: [8, 8], seed: 1 };
  const budgetBytes = 64 * kvlab.modelInfo({ preset: 'tiny' }).kv_bytes_per_token; // 64 tokens of float32 keys and values
  const blocks = (kv) => {
    const steps = kvlab.measure({
      preset: 'tiny',
      kv,
      runs: 1,
      decode_rows: [1, 2],
      decode_contexts: [8, 16],
      prefill_tokens: [1, 8],
      mixed_chunk_tokens: [8],
      mixed_rows: [1],
      mixed_contexts: [8],
      min_sample_ms: 0.1,
      samples: 1,
    }).steps;
    assert.equal(steps.model.kv, kv);
    return kvlab.simulate(steps, workload, ['paged:8'], { kv_bytes: budgetBytes, block_tokens: 16 })['paged:8']
      .kv_blocks_budget;
  };
  assert.equal(blocks('f32'), 4);
  assert.equal(blocks('bf16'), 8);
  assert.equal(blocks('f16'), 8);
});

test('presets lists every model with its sizes, the default first', () => {
  const presets = kvlab.presets();
  assert.deepEqual(
    presets.map((p) => p.preset),
    ['small', 'lab', 'medium', 'tiny']
  );
  for (const p of presets) {
    assert.equal(typeof p.description, 'string');
    assert.deepEqual(kvlab.modelInfo({ preset: p.preset }).parameters, p.parameters);
  }
});

test('bad options throw RangeError or TypeError naming the field and range', () => {
  const cases = [
    [{ runs: 0 }, RangeError, 'options.runs must be an integer from 1 to 100 (got 0)'],
    [{ runs: NaN }, RangeError, 'options.runs must be an integer from 1 to 100 (got NaN)'],
    [{ runs: Infinity }, RangeError, 'options.runs must be an integer from 1 to 100 (got Infinity)'],
    [{ runs: '3' }, TypeError, 'options.runs must be an integer from 1 to 100 (got "3")'],
    [{ model: { d_model: -8 } }, RangeError, 'options.model.d_model must be an integer from 4 to 4096 (got -8)'],
    [{ model: { n_heads: 8, n_kv_heads: 3 } }, RangeError, 'options.model.n_kv_heads must divide n_heads'],
    [{ decode_contexts: [8, 32, 16] }, RangeError, 'options.decode_contexts must be strictly increasing'],
    [{ model: { d_model: 4096, d_ff: 16384, n_layers: 64, n_heads: 32 } }, RangeError, 'too large'],
    [{ preset: 'gpt-5' }, RangeError, 'options.preset must be one of small, lab, medium, tiny'],
    [{ weights: 'fp16' }, RangeError, 'options.weights must be one of f32, bf16 (got "fp16")'],
    [{ weights: 16 }, TypeError, 'options.weights'],
    [{ kv: 'x' }, RangeError, 'options.kv must be one of f32, bf16, f16 (got "x")'],
    [{ kv: 3 }, TypeError, 'options.kv'],
    [42, TypeError, 'options must be an object (got 42)'],
    [{ unknown_field: 1 }, RangeError, 'options.unknown_field is not a known field'],
  ];
  for (const [options, ErrorClass, message] of cases) {
    assert.throws(
      () => kvlab.measure(options),
      (e) => e instanceof ErrorClass && e.message.includes(message),
      `${JSON.stringify(options)} should throw ${ErrorClass.name}: ${message}`
    );
  }
  assert.throws(() => kvlab.measure({}, 'not a function'), /onProgress must be a function/);
  assert.throws(
    () => kvlab.simulate({ decode: {} }, {}),
    (e) => e instanceof Error && /steps/.test(e.message)
  );
  assert.throws(() => kvlab.run({ policies: ['continuous:0'] }), /continuous:0/);
});

test('a throwing progress callback does not break the call', () => {
  const original = console.error;
  let reported = 0;
  console.error = () => {
    reported += 1;
  };
  try {
    const result = kvlab.measure(smallMeasure, () => {
      throw new Error('callback bug');
    });
    assert.equal(result.answer.identical_tokens, true);
    assert.equal(reported, 1);
  } finally {
    console.error = original;
  }
});

test('run hands over Part A and the step table as each is measured, the same values as the result', () => {
  const parts = [];
  const options = {
    measure: smallMeasure,
    workload: { count: 6, prompt: [2, 6], answer: [1, 9], seed: 3 },
    policies: ['continuous:4'],
  };
  const result = kvlab.run(options, undefined, (name, value) => parts.push([name, value]));
  assert.deepEqual(
    parts.map(([name]) => name),
    ['first_answer', 'answer', 'steps']
  );
  assert.equal(parts[0][1].runs, 1);
  assert.deepEqual(parts[0][1].tokens_cache, result.answer.tokens_cache);
  assert.deepEqual(parts[1][1], result.answer);
  assert.deepEqual(parts[2][1], result.steps);
  assert.equal(result.answer.token_ms_cache.length, smallMeasure.answer_tokens);
  assert.equal(result.answer.token_ms_nocache.length, smallMeasure.answer_tokens);
  assert.throws(
    () => kvlab.run(options, undefined, 'not a function'),
    (e) => e instanceof TypeError && /onPart/.test(e.message)
  );
  // A throwing part callback is reported once and the run goes on.
  const original = console.error;
  let reported = 0;
  console.error = () => {
    reported += 1;
  };
  try {
    assert.ok(
      kvlab.run(options, undefined, () => {
        throw new Error('callback bug');
      }).policies['continuous:4']
    );
    assert.equal(reported, 1);
  } finally {
    console.error = original;
  }
});

test('100,000 failing calls leave the module intact', () => {
  const options = {
    preset: 'tiny',
    runs: 1,
    answer_tokens: 6,
    decode_rows: [1],
    decode_contexts: [8],
    prefill_tokens: [4],
    min_sample_ms: 0.1,
    samples: 1,
  };
  const before = kvlab.measure(options).answer.tokens_cache;
  let failures = 0;
  for (let i = 0; i < 100000; i += 1) {
    try {
      kvlab.modelInfo({ runs: -i });
    } catch (e) {
      if (e instanceof RangeError) failures += 1;
    }
  }
  assert.equal(failures, 100000);
  const after = kvlab.measure(options).answer;
  assert.equal(after.identical_tokens, true);
  assert.deepEqual(after.tokens_cache, before);
  assert.equal(kvlab.modelInfo({ preset: 'tiny' }).parameters, 22688);
});
