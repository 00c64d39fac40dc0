// The GPU's 16-bit weights path (web/src/webgpu/precision.js, half.js): which weights the GPU reads, chosen
// from the adapter's features and the matrices' range, and the rounding to f16 the self-check's reference
// runs on. SwiftShader offers no shader-f16, so the kernels' f16 path is not run here: only the choice and
// the rounding, in Node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MATRICES,
  halfBits,
  halfValue,
  largestMatrixWeight,
  toHalfBits,
  weightsRoundedToHalf,
} from '../../web/src/webgpu/half.js';
import { gpuWeightFormat } from '../../web/src/webgpu/precision.js';
import { weightWords } from '../../web/src/webgpu/words.js';

test('16-bit weights where the adapter offers shader-f16, float32 otherwise, with the reason', () => {
  assert.deepEqual(gpuWeightFormat(['shader-f16', 'timestamp-query'], 0.5), {
    weights: 'f16',
    reason: 'this adapter offers shader-f16',
  });
  assert.deepEqual(gpuWeightFormat(new Set(['shader-f16']), 65504), {
    weights: 'f16',
    reason: 'this adapter offers shader-f16',
  });
  // SwiftShader's features: subgroups and timestamps, no shader-f16.
  assert.deepEqual(gpuWeightFormat(['subgroups', 'timestamp-query'], 0.5), {
    weights: 'f32',
    reason: 'this adapter does not offer shader-f16',
  });
  assert.deepEqual(gpuWeightFormat([], 0.5).weights, 'f32');
  assert.deepEqual(gpuWeightFormat(['shader-f16'], 70000), {
    weights: 'f32',
    reason: 'a weight of 70000 is beyond a half’s largest value, 65504',
  });
  assert.match(
    weightWords({ weights: 'f32', weights_reason: 'this adapter does not offer shader-f16' }),
    /float32 \(this adapter does not offer shader-f16\)/
  );
  assert.match(
    weightWords({ weights: 'f16', weights_reason: 'this adapter offers shader-f16' }),
    /16-bit \(f16: this adapter offers shader-f16;/
  );
});

test('a float32 rounds to the nearest half, ties to even', () => {
  const cases = [
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [65519, 0x7bff], // below the halfway to the next (65536): the largest half
    [65520, 0x7c00], // the halfway, ties to even: infinity
    [Infinity, 0x7c00],
    [1 + 2 ** -11, 0x3c00], // halfway between 1 and its successor: to the even one, 1
    [1 + 3 * 2 ** -11, 0x3c02], // halfway between two: up to the even
    [1 + 2 ** -11 + 2 ** -20, 0x3c01], // past the halfway: up
    [2 ** -14, 0x0400], // the smallest normal
    [2 ** -24, 0x0001], // the smallest subnormal
    [3 * 2 ** -25, 0x0002], // halfway between subnormals 1 and 2: to the even, 2
    [2 ** -25, 0x0000], // halfway between 0 and the smallest: to 0
    [2 ** -26, 0x0000],
    [2 ** -14 - 2 ** -25, 0x0400], // the largest subnormal's halfway up: rounds into the normals
  ];
  for (const [value, bits] of cases) assert.equal(halfBits(value), bits, `${value}`);
  assert.ok(Number.isNaN(halfValue(halfBits(NaN))));
  for (const [, bits] of cases) assert.equal(halfBits(halfValue(bits)), bits, `bits ${bits.toString(16)} round-trip`);
  assert.equal(halfValue(0x3555), 0.333251953125);
  assert.deepEqual(Array.from(toHalfBits(new Float32Array([1, -2, 0.5]))), [0x3c00, 0xc000, 0x3800]);
});

test('the weights as the GPU holds them: every matrix rounded, the embedding and norms as they were', () => {
  const layer = Object.fromEntries(MATRICES.map((name, i) => [name, new Float32Array([1 / 3, -i - 0.1])]));
  const weights = {
    token_embedding: new Float32Array([1 / 3]),
    final_norm: new Float32Array([1 / 3]),
    w_out: new Float32Array([1 / 3, 2]),
    layers: [{ ...layer, attn_norm: new Float32Array([1 / 3]), ffn_norm: new Float32Array([1 / 3]) }],
  };
  const held = weightsRoundedToHalf(weights);
  assert.equal(held.token_embedding[0], Math.fround(1 / 3));
  assert.equal(held.layers[0].attn_norm[0], Math.fround(1 / 3));
  assert.equal(held.w_out[0], 0.333251953125);
  for (const name of MATRICES) assert.equal(held.layers[0][name][0], 0.333251953125, name);
  assert.equal(held.layers[0].w_down[1], halfValue(halfBits(-6.1)));
  assert.equal(largestMatrixWeight(weights), Math.fround(6.1));
});
