// The wasm build and the native build draw the same weights and produce the same tokens, and the
// Node command line takes the same words as the native one.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');
const { loadModule, nativeCli, kvlabScript, wasmDir } = require('./helpers');

// The default preset, with a grid small enough to be quick: only the tokens matter here.
const flags = [
  '--runs',
  '1',
  '--decode-rows',
  '1',
  '--decode-contexts',
  '8',
  '--prefill-tokens',
  '4',
  '--min-sample-ms',
  '0.1',
  '--samples',
  '1',
];
const options = {
  runs: 1,
  decode_rows: [1],
  decode_contexts: [8],
  prefill_tokens: [4],
  min_sample_ms: 0.1,
  samples: 1,
};

test('default preset: wasm tokens equal native tokens', async () => {
  const kvlab = await loadModule();
  const wasm = kvlab.measure(options).answer;
  const native = JSON.parse(execFileSync(nativeCli, ['measure', '--json', ...flags], { encoding: 'utf8' })).answer;
  assert.equal(wasm.tokens_cache.length, 48);
  assert.deepEqual(wasm.prompt, native.prompt);
  assert.deepEqual(wasm.tokens_cache, native.tokens_cache);
  assert.deepEqual(wasm.tokens_nocache, native.tokens_nocache);
  assert.equal(wasm.identical_tokens, true);
  assert.equal(native.identical_tokens, true);
});

test('bf16 weights: wasm tokens equal native tokens, on both paths', async () => {
  const kvlab = await loadModule();
  const wasm = kvlab.measure({ ...options, weights: 'bf16' }).answer;
  const native = JSON.parse(
    execFileSync(nativeCli, ['measure', '--json', '--weights', 'bf16', ...flags], { encoding: 'utf8' })
  ).answer;
  assert.deepEqual(wasm.tokens_cache, native.tokens_cache);
  assert.deepEqual(wasm.tokens_nocache, native.tokens_nocache);
  assert.equal(wasm.identical_tokens, true);
});

test('16-bit KV caches: wasm tokens equal native tokens in each format, on both paths', async () => {
  const kvlab = await loadModule();
  for (const kv of ['bf16', 'f16']) {
    const wasm = kvlab.measure({ ...options, kv }).answer;
    const native = JSON.parse(
      execFileSync(nativeCli, ['measure', '--json', '--kv', kv, ...flags], { encoding: 'utf8' })
    ).answer;
    assert.deepEqual(wasm.tokens_cache, native.tokens_cache, kv);
    assert.deepEqual(wasm.tokens_nocache, native.tokens_nocache, kv);
    assert.equal(wasm.identical_tokens, true, kv);
    assert.equal(native.identical_tokens, true, kv);
  }
});

test('scripts/kvlab --wasm takes the same words and prints the same keys', () => {
  const wasm = JSON.parse(
    execFileSync(kvlabScript, ['--wasm', 'measure', '--json', '--preset', 'tiny', ...flags], { encoding: 'utf8' })
  );
  const native = JSON.parse(
    execFileSync(kvlabScript, ['measure', '--json', '--preset', 'tiny', ...flags], { encoding: 'utf8' })
  );
  assert.deepEqual(Object.keys(wasm).sort(), Object.keys(native).sort());
  assert.deepEqual(wasm.answer.tokens_cache, native.answer.tokens_cache);
  assert.equal(wasm.steps.model.instruction_set, 'wasm simd128');

  const text = execFileSync(kvlabScript, ['--wasm', 'measure', '--preset', 'tiny', ...flags], { encoding: 'utf8' });
  assert.match(text, /no KV cache median [\d.]+ ms \(min [\d.]+, max [\d.]+, spread \d+%\)/);
  assert.match(text, /ratio [\d.]+x, identical tokens on both paths/);
});

test('a bad flag exits with status 2 and names the flag, in both builds', () => {
  for (const prefix of [[], ['--wasm']]) {
    const run = spawnSync(kvlabScript, [...prefix, 'measure', '--runs', '0'], { encoding: 'utf8' });
    assert.equal(run.status, 2, `${prefix} status`);
    assert.equal(run.stderr, 'kvlab: --runs must be an integer from 1 to 100 (got 0)\n');
    const unknown = spawnSync(kvlabScript, [...prefix, 'measure', '--no-such-flag'], { encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /--no-such-flag/);
    const weights = spawnSync(kvlabScript, [...prefix, 'measure', '--weights', 'fp16'], { encoding: 'utf8' });
    assert.equal(weights.status, 2);
    assert.equal(weights.stderr, 'kvlab: --weights must be one of f32, bf16 (got "fp16")\n');
    const kv = spawnSync(kvlabScript, [...prefix, 'measure', '--kv', 'x'], { encoding: 'utf8' });
    assert.equal(kv.status, 2);
    assert.equal(kv.stderr, 'kvlab: --kv must be one of f32, bf16, f16 (got "x")\n');
  }
});

test('the module contains WebAssembly SIMD arithmetic', () => {
  const listing = execFileSync('wasm-objdump', ['-d', path.join(wasmDir, 'kvlab.wasm')], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const count = (op) => (listing.match(new RegExp(`\\b${op.replace('.', '\\.')}\\b`, 'g')) || []).length;
  assert.ok(count('f32x4.mul') > 0, 'f32x4.mul present');
  assert.ok(count('f32x4.add') > 0, 'f32x4.add present');
  assert.ok(count('i32x4.shl') > 0, 'i32x4.shl present: bf16 weights are widened in vectors');
  // 16-bit keys and values are widened and rounded in vectors: unsigned shifts of the pairs, the f16
  // conversion's lane compares and selects.
  assert.ok(count('i32x4.shr_u') > 0, 'i32x4.shr_u present: the high half of a KV pair');
  // (LLVM turns the signed compares into unsigned ones, the operands being masked below 2^31.)
  const compares = (listing.match(/\bi32x4\.(lt|gt)_[su]\b/g) || []).length;
  assert.ok(compares > 0, 'i32x4 lane compares present: f16 subnormal, normal and huge lanes told apart');
  assert.ok(count('v128.bitselect') > 0, 'v128.bitselect present: the f16 conversion selects per lane');
});
