// y[r, o] = Σ_i x[r, i] · w[o, i] over 1..N rows, w row-major [out, in] as the CPU holds it. A workgroup
// computes 64 outputs for a tile of ROW_TILE rows: each thread owns one output (one weight row, read as
// vec4) and ROW_TILE accumulators, and the rows' inputs come through workgroup memory in chunks, so a
// weight is read once per tile of rows: the rows gain. `accumulate` adds into y (the residual add, fused).
// `weights` 'f16' reads the weights as IEEE halves (the adapter's shader-f16), half the bytes a step
// reads; the sums stay float32.

import { STEP_UNIFORM, WORKGROUP } from './common.js';

export const ROW_TILE = 16;
const CHUNK = 64;

export const matmulShader = ({ nIn, nOut, accumulate, weights }) => /* wgsl */ `
${weights === 'f16' ? 'enable f16;' : ''}
${STEP_UNIFORM}
const K: u32 = ${nIn}u;
const N: u32 = ${nOut}u;
const ROW_TILE: u32 = ${ROW_TILE}u;
const CHUNK: u32 = ${CHUNK}u;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<vec4<${weights}>>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
var<workgroup> tile: array<f32, ${ROW_TILE * CHUNK}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wg.x * ${WORKGROUP}u + lid;
  let r0 = wg.y * ROW_TILE;
  // The tile's rows that exist: a 1-row step does 1 row's work, not ROW_TILE's.
  let tileRows = min(ROW_TILE, step.rows - r0);
  var acc: array<f32, ${ROW_TILE}>;
  for (var k0 = 0u; k0 < K; k0 = k0 + CHUNK) {
    let width = min(CHUNK, K - k0);
    for (var j = lid; j < ROW_TILE * CHUNK; j = j + ${WORKGROUP}u) {
      let r = r0 + j / CHUNK;
      let k = j % CHUNK;
      var value = 0.0;
      if (r < step.rows && k < width) { value = x[r * K + k0 + k]; }
      tile[j] = value;
    }
    workgroupBarrier();
    if (o < N) {
      for (var k = 0u; k < width; k = k + 4u) {
        let weights = vec4<f32>(w[(o * K + k0 + k) / 4u]);
        for (var r = 0u; r < tileRows; r = r + 1u) {
          let b = r * CHUNK + k;
          acc[r] = acc[r] + dot(weights, vec4<f32>(tile[b], tile[b + 1u], tile[b + 2u], tile[b + 3u]));
        }
      }
    }
    workgroupBarrier();
  }
  if (o >= N) { return; }
  for (var r = 0u; r < tileRows; r = r + 1u) {
    let row = r0 + r;
    y[row * N + o] = ${accumulate ? 'y[row * N + o] + ' : ''}acc[r];
  }
}
`;
