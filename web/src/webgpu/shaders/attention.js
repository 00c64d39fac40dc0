// Attention of one row's head over its own KV slot, positions 0..position (its context): one workgroup
// per (head, row); the scores live in workgroup memory (so max_seq is bounded by it), softmax as the
// CPU does it (the max subtracted), then the weighted sum of the values. Grouped-query: head h reads KV
// head h / (n_heads / n_kv_heads).

import { LOWEST, WORKGROUP, reduce } from './common.js';

export const attentionShader = ({ d, kvDim, headDim, nHeads, nKvHeads, maxSeq }) => /* wgsl */ `
const D: u32 = ${d}u;
const KV: u32 = ${kvDim}u;
const HD: u32 = ${headDim}u;
const QKV: u32 = ${d + 2 * kvDim}u;
const MAX_SEQ: u32 = ${maxSeq}u;
const GROUP: u32 = ${nHeads / nKvHeads}u;
@group(0) @binding(1) var<storage, read> positions: array<u32>;
@group(0) @binding(2) var<storage, read> slots: array<u32>;
@group(0) @binding(3) var<storage, read> qkv: array<f32>;
@group(0) @binding(4) var<storage, read> keys: array<f32>;
@group(0) @binding(5) var<storage, read> values: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
var<workgroup> scores: array<f32, ${maxSeq}>;
var<workgroup> red: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let head = wg.x;
  let r = wg.y;
  let context = positions[r] + 1u;
  let q = r * QKV + head * HD;
  let cache = slots[r] * MAX_SEQ * KV + (head / GROUP) * HD;
  let inv_sqrt = 1.0 / sqrt(f32(HD));

  var best = ${LOWEST};
  for (var t = lid; t < context; t = t + ${WORKGROUP}u) {
    var s = 0.0;
    for (var i = 0u; i < HD; i = i + 1u) { s = s + qkv[q + i] * keys[cache + t * KV + i]; }
    s = s * inv_sqrt;
    scores[t] = s;
    best = max(best, s);
  }
  red[lid] = best;
  workgroupBarrier();
  ${reduce('max')}
  let top = red[0];
  workgroupBarrier();

  var sum = 0.0;
  for (var t = lid; t < context; t = t + ${WORKGROUP}u) {
    let e = exp(scores[t] - top);
    scores[t] = e;
    sum = sum + e;
  }
  red[lid] = sum;
  workgroupBarrier();
  ${reduce('add')}
  let total = red[0];

  for (var i = lid; i < HD; i = i + ${WORKGROUP}u) {
    var acc = 0.0;
    for (var t = 0u; t < context; t = t + 1u) { acc = acc + (scores[t] / total) * values[cache + t * KV + i]; }
    out[r * D + head * HD + i] = acc;
  }
}
fn add(a: f32, b: f32) -> f32 { return a + b; }
`;
