// The noise schema through the module (docs/benchmarks.md, "Figures that repeat"): measure() and run()
// give each figure's spread, the threshold the catalog exports, the cells timed again and those still
// noisy; the lab's top-level `noisy`. Which cells come out noisy depends on the machine's load, so only
// the shapes and their agreement with the threshold are checked, never a time.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallMeasure } = require('./helpers');

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

function assertSpread(value, what) {
  assert.equal(typeof value, 'number', what);
  assert.ok(Number.isFinite(value) && value >= 0, `${what} = ${value}`);
}

// Every spread in the grid's layout, and noisy_cells exactly the cells past the threshold.
function assertNoiseFields(result) {
  const threshold = kvlab.catalog().limits.timing.noisy_spread;
  const timing = result.steps.model.timing;
  assert.equal(timing.noisy_spread, threshold);
  const { decode, prefill } = result.steps;
  assert.equal(timing.decode_spread.length, decode.rows.length);
  const wide = [];
  timing.decode_spread.forEach((row, i) => {
    assert.equal(row.length, decode.contexts.length);
    row.forEach((spread, j) => {
      assertSpread(spread, `decode_spread[${i}][${j}]`);
      if (spread > threshold) wide.push({ grid: 'decode', rows: decode.rows[i], context: decode.contexts[j], spread });
    });
  });
  assert.equal(timing.prefill_spread.length, prefill.tokens.length);
  timing.prefill_spread.forEach((spread, k) => {
    assertSpread(spread, `prefill_spread[${k}]`);
    if (spread > threshold) wide.push({ grid: 'prefill', tokens: prefill.tokens[k], spread });
  });
  assert.deepEqual(
    timing.noisy_cells.filter((cell) => cell.grid !== 'mixed'),
    wide
  );
  // Cells timed again for their spread (a cell timed again because more work timed faster is not counted).
  assert.ok(Number.isInteger(timing.retimed_cells) && timing.retimed_cells >= 0);
  assert.ok(Array.isArray(timing.monotone_corrections));

  const { answer } = result;
  for (const path of ['nocache_ms', 'cache_ms']) assertSpread(answer[path].spread, `answer.${path}.spread`);
  assert.equal(answer.noisy, answer.nocache_ms.spread > threshold || answer.cache_ms.spread > threshold);
}

test('the catalog exports the noisy spread, a fraction', () => {
  const threshold = kvlab.catalog().limits.timing.noisy_spread;
  assert.ok(threshold > 0 && threshold < 1, String(threshold));
});

test('measure() gives every figure its spread and lists the noisy cells', () => {
  const result = kvlab.measure({ ...smallMeasure, samples: 5 });
  assertNoiseFields(result);
  // Monotone where the work grows: prefill in tokens, decode in rows at each context.
  const { decode, prefill } = result.steps;
  for (let k = 1; k < prefill.ms.length; k += 1) assert.ok(prefill.ms[k] >= prefill.ms[k - 1], `prefill ${k}`);
  for (let j = 0; j < decode.contexts.length; j += 1)
    for (let i = 1; i < decode.rows.length; i += 1)
      assert.ok(decode.ms[i][j] >= decode.ms[i - 1][j], `decode rows ${decode.rows[i]} context ${decode.contexts[j]}`);
});

test('run() says whether the lab holds a noisy figure, and prices no policy at 0, null or infinity', () => {
  const result = kvlab.run({
    measure: smallMeasure,
    workload: { count: 20, prompt: [2, 6], answer: [1, 9], seed: 3 },
  });
  assertNoiseFields(result);
  assert.equal(result.noisy, result.answer.noisy || result.steps.model.timing.noisy_cells.length > 0);
  for (const [name, metrics] of Object.entries(result.policies))
    for (const key of ['makespan_ms', 'median_ttft_ms', 'tokens_per_s']) {
      const value = metrics[key];
      assert.ok(typeof value === 'number' && Number.isFinite(value) && value > 0, `${name}.${key} = ${value}`);
    }
});
