// What the lab times a second time when its step table contradicts the work its steps do
// (web/src/worker/remeasure.js), with the timings and the pricing given here instead of a device's: the
// same code runs on the CPU's timings and on the GPU's.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remeasureContradictions } from '../../web/src/worker/remeasure.js';
import { busyQueueText, queueRemeasuredText } from '../../web/src/shared/contradictions.js';

// Timings that answer from fixed grids and record what they were asked.
function fixedTimings({ cells, table }) {
  const asked = [];
  return {
    asked,
    async decodeCells(rows, contexts) {
      asked.push({ decodeCells: { rows, contexts } });
      return cells;
    },
    async decodeAndPrefill(rows, contexts, tokens) {
      asked.push({ decodeAndPrefill: { rows, contexts, tokens } });
      return table;
    },
  };
}

// A queue priced on the table's first cells: one at a time with the cache takes 1,600 one-row decode
// steps at the first context, without it 1,600 prompt passes of 8 tokens.
const reprice = (steps) => ({
  'serial-cache': { makespan_ms: 1600 * steps.decode.ms[0][0] },
  'serial-nocache': { makespan_ms: 1600 * steps.prefill.ms[1] },
});

const labResult = (decodeMs, prefillMs = [1, 3]) => {
  const steps = {
    decode: { rows: [1, 16], contexts: [8, 64], ms: decodeMs },
    prefill: { tokens: [1, 8], ms: prefillMs },
  };
  return { steps, policies: reprice(steps) };
};

test('a table in the physics’ order is not timed again', async () => {
  const result = labResult([
    [2, 2.5],
    [10, 12],
  ]);
  const timings = fixedTimings({});
  assert.equal(await remeasureContradictions(result, timings, reprice), result);
  assert.deepEqual(timings.asked, []);
});

// One row at 5 ms: the cache 8,000 ms against 4,800 ms without it, which the arithmetic forbids; the
// table's second timing is `decode` and `prefill`. -> {result, timings, settled}
async function cacheSlowerThanNone(decode, prefill) {
  const result = labResult([
    [5, 5.5],
    [20, 24],
  ]);
  const timings = fixedTimings({ table: { decode, prefill } });
  return { result, timings, settled: await remeasureContradictions(result, timings, reprice) };
}

const FIRST_ORDER = { slower: 'serial-cache', faster: 'serial-nocache', slower_ms: 8000, faster_ms: 4800 };

test('the cache slower than none: the decode and prefill grids are timed again, each cell keeps its faster time, and the queue is priced on them', async () => {
  const { timings, settled } = await cacheSlowerThanNone(
    [
      [2.2, 5.6],
      [21, 23],
    ],
    [0.9, 4]
  );
  assert.deepEqual(timings.asked, [{ decodeAndPrefill: { rows: [1, 16], contexts: [8, 64], tokens: [1, 8] } }]);
  assert.deepEqual(settled.steps.decode.ms, [
    [2.2, 5.5],
    [20, 23],
  ]);
  assert.deepEqual(settled.steps.prefill.ms, [0.9, 3]);
  assert.equal(settled.policies['serial-cache'].makespan_ms, 1600 * 2.2);
  assert.deepEqual(settled.steps.remeasured_queue, { orders: [FIRST_ORDER], orders_after: [], replaced: true });
});

test('the order still forbidden after the second timing: the first figures stand, with both orders recorded', async () => {
  const { result, settled } = await cacheSlowerThanNone(
    [
      [4.5, 6],
      [25, 30],
    ],
    [1, 3]
  );
  assert.deepEqual(settled.steps.decode, result.steps.decode);
  assert.equal(settled.policies, result.policies);
  assert.deepEqual(settled.steps.remeasured_queue, {
    orders: [FIRST_ORDER],
    orders_after: [{ ...FIRST_ORDER, slower_ms: 7200 }],
    replaced: false,
  });
});

test('static batches slower than one at a time is no contradiction: a static batch decodes every row until its longest answer ends', async () => {
  const result = labResult([
    [2, 2.5],
    [40, 48],
  ]);
  result.policies['static:16'] = { makespan_ms: 100 * 40 }; // 4,000 ms against 3,200 ms one at a time
  const timings = fixedTimings({});
  assert.equal(await remeasureContradictions(result, timings, reprice), result);
  assert.deepEqual(timings.asked, []);
});

test('more rows faster than fewer: only those cells are timed again, and kept when they agree with the grid', async () => {
  // At context 64, 16 rows came out faster than 1.
  const result = labResult([
    [2, 9],
    [10, 8],
  ]);
  const timings = fixedTimings({ cells: [[2.6], [12]] });
  const settled = await remeasureContradictions(result, timings, reprice);
  assert.deepEqual(timings.asked, [{ decodeCells: { rows: [1, 16], contexts: [64] } }]);
  assert.deepEqual(settled.steps.decode.ms, [
    [2, 2.6],
    [10, 12],
  ]);
  assert.deepEqual(
    settled.steps.remeasured.map((c) => [c.rows, c.context, c.before_ms, c.after_ms, c.replaced]),
    [
      [1, 64, 9, 2.6, true],
      [16, 64, 8, 12, true],
    ]
  );
  assert.equal(settled.steps.remeasured_queue, undefined);
});

test('the queue chapter’s words after a second timing: settled, or the first figures standing with both orders', () => {
  const order = (slower_ms) => ({ slower: 'serial-cache', faster: 'serial-nocache', slower_ms, faster_ms: 3200 });
  assert.match(
    queueRemeasuredText({ orders: [order(5000)], orders_after: [], replaced: true }),
    /^At first, One at a time, with cache served the queue in 5\.0 s against 3\.2 s for One at a time, no cache, which the arithmetic forbids, so the decode and prefill steps were timed a second time: each step keeps the faster of its two times/
  );
  const stands = busyQueueText([order(5000)], { orders: [order(5000)], orders_after: [order(4500)], replaced: false });
  assert.match(
    stands,
    /^This device was busy while measuring: One at a time, with cache served the queue in 5\.0 s against 3\.2 s/
  );
  assert.match(
    stands,
    /still came out in this order \(One at a time, with cache served the queue in 4\.5 s against 3\.2 s .*\), so the first figures stand/
  );
  assert.doesNotMatch(busyQueueText([order(5000)]), /second time/);
});
