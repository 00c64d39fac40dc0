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

// A queue priced on the table's 1- and 16-row decode steps at the first context: static batches of 16
// take 100 of the 16-row steps, one at a time with the cache 1,600 one-row steps, without it much longer.
const reprice = (steps) => ({
  'static:16': { makespan_ms: 100 * steps.decode.ms[1][0] },
  'serial-cache': { makespan_ms: 1600 * steps.decode.ms[0][0] },
  'serial-nocache': { makespan_ms: 1e9 },
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

// 16 rows at 50 ms: static batches 5,000 ms against 3,200 ms one at a time, which the arithmetic forbids;
// the table's second timing is `decode` and `prefill`. -> {result, timings, settled}
async function staticSlowerThanSerial(decode, prefill) {
  const result = labResult([
    [2, 2.5],
    [50, 60],
  ]);
  const timings = fixedTimings({ table: { decode, prefill } });
  return { result, timings, settled: await remeasureContradictions(result, timings, reprice) };
}

test('static batches slower than one at a time: the decode and prefill grids are timed again, each cell keeps its faster time, and the queue is priced on them', async () => {
  const { timings, settled } = await staticSlowerThanSerial(
    [
      [3, 2.4],
      [20, 61],
    ],
    [0.9, 4]
  );
  assert.deepEqual(timings.asked, [{ decodeAndPrefill: { rows: [1, 16], contexts: [8, 64], tokens: [1, 8] } }]);
  assert.deepEqual(settled.steps.decode.ms, [
    [2, 2.4],
    [20, 60],
  ]);
  assert.deepEqual(settled.steps.prefill.ms, [0.9, 3]);
  assert.equal(settled.policies['static:16'].makespan_ms, 2000);
  assert.deepEqual(settled.steps.remeasured_queue, {
    orders: [{ slower: 'static:16', faster: 'serial-cache', slower_ms: 5000, faster_ms: 3200 }],
    orders_after: [],
    replaced: true,
  });
});

test('the order still forbidden after the second timing: the first figures stand, with both orders recorded', async () => {
  const { result, settled } = await staticSlowerThanSerial(
    [
      [2.2, 2.5],
      [45, 60],
    ],
    [1, 3]
  );
  assert.deepEqual(settled.steps.decode, result.steps.decode);
  assert.equal(settled.policies, result.policies);
  assert.deepEqual(settled.steps.remeasured_queue, {
    orders: [{ slower: 'static:16', faster: 'serial-cache', slower_ms: 5000, faster_ms: 3200 }],
    orders_after: [{ slower: 'static:16', faster: 'serial-cache', slower_ms: 4500, faster_ms: 3200 }],
    replaced: false,
  });
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
  const order = (slower_ms) => ({ slower: 'static:16', faster: 'serial-cache', slower_ms, faster_ms: 3200 });
  assert.match(
    queueRemeasuredText({ orders: [order(5000)], orders_after: [], replaced: true }),
    /^At first, Static batches.* served the queue in 5\.0 s against 3\.2 s for .*, which the arithmetic forbids, so the decode and prefill steps were timed a second time: each step keeps the faster of its two times/
  );
  const stands = busyQueueText([order(5000)], { orders: [order(5000)], orders_after: [order(4500)], replaced: false });
  assert.match(
    stands,
    /^This device was busy while measuring: Static batches.* served the queue in 5\.0 s against 3\.2 s/
  );
  assert.match(
    stands,
    /still came out in this order \(Static batches.* served the queue in 4\.5 s against 3\.2 s .*\), so the first figures stand/
  );
  assert.doesNotMatch(busyQueueText([order(5000)]), /second time/);
});
