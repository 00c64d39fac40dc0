// Long sessions: 200 repeated runs leave the wasm heap flat (no growth, nothing left allocated).
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule } = require('./helpers');

const options = {
  measure: {
    preset: 'tiny',
    runs: 1,
    answer_tokens: 8,
    decode_rows: [1, 4],
    decode_contexts: [8, 64],
    prefill_tokens: [1, 64],
    min_sample_ms: 0.1,
    samples: 1,
  },
  workload: { count: 40, prompt: [8, 32], answer: [4, 16], seed: 3 },
};

test('200 run() calls keep the heap size and the bytes in use flat', async () => {
  const kvlab = await loadModule();
  for (let i = 0; i < 5; i += 1) kvlab.run(options); // warm-up: first-use allocations settle
  const before = kvlab.memory();
  let tokens;
  for (let i = 0; i < 200; i += 1) {
    const result = kvlab.run(options);
    tokens = tokens || result.answer.tokens_cache;
    assert.deepEqual(result.answer.tokens_cache, tokens);
  }
  const after = kvlab.memory();
  assert.equal(after.heap_bytes, before.heap_bytes, 'the heap did not grow');
  assert.equal(
    after.in_use_bytes,
    before.in_use_bytes,
    `bytes in use: ${before.in_use_bytes} before, ${after.in_use_bytes} after`
  );
  console.log(
    `# heap ${before.heap_bytes} bytes before and after; in use ${before.in_use_bytes} before, ${after.in_use_bytes} after`
  );
});
