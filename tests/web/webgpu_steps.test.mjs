// The GPU's second timings (web/src/webgpu/steps.js gpuTimings), on a stand-in model and timer: the
// steps it records are the decode and prefill steps asked for, and the times come back in the grids'
// shape. No browser and no WebGPU needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gpuTimings } from '../../web/src/webgpu/steps.js';

// A model that remembers the rows it was given, and a timer whose step takes 1 ms a row plus 0.01 ms for
// each position read by its last row.
function standIns() {
  const steps = [];
  let rows = null;
  const model = {
    shape: { vocab: 64, maxSeq: 160 },
    setRows(rowsIn) {
      rows = rowsIn;
      steps.push(rowsIn);
      return rowsIn.tokens.length;
    },
    encodeSteps() {},
  };
  const timer = {
    async time() {
      return { ms: rows.tokens.length + rows.positions[rows.positions.length - 1] / 100, repeats: 1 };
    },
  };
  return { model, timer, steps };
}

test('decode cells: r rows in their own slots at context c, timed in the rows × contexts shape', async () => {
  const { model, timer, steps } = standIns();
  const ms = await gpuTimings(model, timer, { minSampleMs: 1, samples: 1 }).decodeCells([2, 8], [16, 64]);
  assert.deepEqual(ms, [
    [2.15, 2.63],
    [8.15, 8.63],
  ]);
  assert.deepEqual(steps[1], { tokens: [1, 1], positions: [63, 63], slots: [0, 1] });
});

test('the decode and prefill grids: a prefill of t tokens is one pass of t positions in slot 0', async () => {
  const { model, timer, steps } = standIns();
  const phases = [];
  const timed = await gpuTimings(model, timer, { minSampleMs: 1, samples: 1 }).decodeAndPrefill(
    [1],
    [8],
    [1, 4],
    (fraction, phase) => phases.push([fraction, phase])
  );
  assert.deepEqual(timed, { decode: [[1.07]], prefill: [1, 4.03] });
  assert.deepEqual(steps[2], { tokens: [3, 10, 17, 24], positions: [0, 1, 2, 3], slots: [0, 0, 0, 0] });
  assert.deepEqual(
    phases.map(([f]) => f),
    [0, 1 / 3, 2 / 3]
  );
  assert.match(phases[2][1], /^prefill of 4 tokens on the GPU, a second time$/);
});
