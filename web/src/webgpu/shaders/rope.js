// Rotary embedding in the model's "rotate half" convention (element i of a head pairs with
// i + head_dim/2; src/model, web/reference/model.js) on q in place and on k, at each row's own position,
// and k and v written into the row's KV slot at that position: q | k | v are one matrix product's output.

import { STEP_UNIFORM, WORKGROUP } from './common.js';

export const ropeShader = ({ d, kvDim, headDim, maxSeq }) => /* wgsl */ `
${STEP_UNIFORM}
const D: u32 = ${d}u;
const KV: u32 = ${kvDim}u;
const HD: u32 = ${headDim}u;
const HALF: u32 = ${headDim / 2}u;
const QKV: u32 = ${d + 2 * kvDim}u;
const MAX_SEQ: u32 = ${maxSeq}u;
@group(0) @binding(1) var<storage, read> positions: array<u32>;
@group(0) @binding(2) var<storage, read> slots: array<u32>;
@group(0) @binding(3) var<storage, read> cosines: array<f32>;
@group(0) @binding(4) var<storage, read> sines: array<f32>;
@group(0) @binding(5) var<storage, read_write> qkv: array<f32>;
@group(0) @binding(6) var<storage, read_write> keys: array<f32>;
@group(0) @binding(7) var<storage, read_write> values: array<f32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let j = id.x;
  let r = id.y;
  if (r >= step.rows) { return; }
  let position = positions[r];
  let row = r * QKV;
  let cached = (slots[r] * MAX_SEQ + position) * KV;
  if (j < D / 2u) {
    let i = j % HALF;
    let at = row + (j / HALF) * HD + i;
    let c = cosines[position * HALF + i];
    let s = sines[position * HALF + i];
    let a = qkv[at];
    let b = qkv[at + HALF];
    qkv[at] = a * c - b * s;
    qkv[at + HALF] = a * s + b * c;
  } else if (j < D / 2u + KV / 2u) {
    let jj = j - D / 2u;
    let i = jj % HALF;
    let head = (jj / HALF) * HD + i;
    let c = cosines[position * HALF + i];
    let s = sines[position * HALF + i];
    let a = qkv[row + D + head];
    let b = qkv[row + D + head + HALF];
    keys[cached + head] = a * c - b * s;
    keys[cached + head + HALF] = a * s + b * c;
  } else if (j < D / 2u + KV / 2u + KV) {
    let jj = j - D / 2u - KV / 2u;
    values[cached + jj] = qkv[row + D + KV + jj];
  }
}
`;

// Threads a row needs: q's pairs, k's pairs, v's values.
export const ropeThreads = ({ d, kvDim }) => d / 2 + kvDim / 2 + kvDim;
