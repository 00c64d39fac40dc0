// The threaded module (Emscripten pthreads) under Node: the same tokens for 1, 2 and 4 threads, and the
// same as the single-threaded module's; the result says its thread count, and what the check of the
// threads chose; the pool of thread workers is as large as asked or as the machine's cores allow; each
// module refuses more threads than it can run.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const { loadModule, loadThreadsModule, thrown } = require('./helpers');

// The default preset (its products split into many panels, its attention into 6 heads), a small grid:
// only the tokens matter here, on the threads asked for (no check of whether they pay).
const options = {
  thread_check: false,
  runs: 1,
  answer_tokens: 24,
  decode_rows: [1, 3],
  decode_contexts: [8],
  prefill_tokens: [4],
  min_sample_ms: 0.1,
  samples: 1,
};

let threaded;
let single;
test.before(async () => {
  threaded = await loadThreadsModule();
  single = await loadModule();
});

test('1, 2 and 4 threads give the tokens of the single-threaded module', () => {
  const want = single.measure(options).answer;
  assert.equal(want.tokens_cache.length, 24);
  for (const threads of [1, 2, 4]) {
    const result = threaded.measure({ ...options, threads });
    assert.deepEqual(result.answer.tokens_cache, want.tokens_cache, `${threads} threads`);
    assert.deepEqual(result.answer.tokens_nocache, want.tokens_nocache, `${threads} threads`);
    assert.equal(result.answer.identical_tokens, true);
    assert.equal(result.steps.model.threads, threads === 1 ? undefined : threads);
  }
});

test('bf16 weights and a 16-bit cache: the same tokens on 2 threads', () => {
  const given = { ...options, weights: 'bf16', kv: 'f16' };
  const want = single.measure(given).answer;
  const got = threaded.measure({ ...given, threads: 2 }).answer;
  assert.deepEqual(got.tokens_cache, want.tokens_cache);
  assert.deepEqual(got.tokens_nocache, want.tokens_nocache);
});

test('on threads the check says what it chose, and the measurement runs on it', () => {
  const { steps } = threaded.measure({ ...options, thread_check: true, threads: 2 });
  const check = steps.model.thread_check;
  assert.equal(check.asked, 2);
  assert.ok(check.used === 1 || check.used === 2, `used ${check.used}`);
  assert.equal(steps.model.threads, check.used === 1 ? undefined : 2);
  assert.deepEqual(check.rows, [1, 16]);
  assert.equal(typeof check.reason, 'string');
});

test('the pool of thread workers: as many as asked, else as the cores allow', async () => {
  assert.equal(threaded.PThread.unusedWorkers.length + threaded.PThread.runningWorkers.length, 3);
  const own = await loadThreadsModule(null);
  const cores = Math.min(os.cpus().length, own.catalog().limits.threads.max);
  assert.equal(own.PThread.unusedWorkers.length, Math.max(1, 2 * (cores - 1)));
});

test('each module refuses more threads than it runs, naming the field', () => {
  const many = thrown(() => threaded.modelInfo({ threads: 9 }));
  assert.ok(many instanceof RangeError);
  assert.match(many.message, /options\.threads must be an integer from 1 to 8 \(got 9\)/);
  const two = thrown(() => single.modelInfo({ threads: 2 }));
  assert.ok(two instanceof RangeError);
  assert.match(two.message, /options\.threads must be an integer from 1 to 1 \(got 2\)/);
});
