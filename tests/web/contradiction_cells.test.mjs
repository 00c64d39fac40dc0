// Which decode cells the lab times again (shared/contradictions.js brokenDecodeCells): both cells of
// every step that came out faster, beyond noise, with more rows than with fewer, at every context.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokenDecodeCells } from '../../web/src/shared/contradictions.js';

test('the cells on either side of a step faster with more rows, at each context, once each', () => {
  const decode = {
    rows: [1, 2, 4, 8],
    contexts: [8, 64],
    ms: [
      [1, 2],
      [2, 4],
      [4, 12.1],
      [8, 10.2],
    ],
  };
  assert.deepEqual(brokenDecodeCells(decode), [
    { rows: 4, context: 64, step_ms: 12.1 },
    { rows: 8, context: 64, step_ms: 10.2 },
  ]);
});

test('a grid in the physics’ order, or faster only within noise, has no broken cell', () => {
  const decode = { rows: [1, 2, 4], contexts: [8], ms: [[1], [0.95], [2]] };
  assert.deepEqual(brokenDecodeCells(decode), []);
});

test('a cell slower than two with more rows is counted once', () => {
  const decode = { rows: [1, 2, 4], contexts: [8], ms: [[5], [2], [3]] };
  assert.deepEqual(brokenDecodeCells(decode), [
    { rows: 1, context: 8, step_ms: 5 },
    { rows: 2, context: 8, step_ms: 2 },
    { rows: 4, context: 8, step_ms: 3 },
  ]);
});
