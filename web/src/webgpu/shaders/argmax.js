// The greedy token of each row: the index of its largest logit, the lowest index on a tie (as the CPU's
// argmax), one workgroup a row; only these ids come back to the CPU each step.

import { LOWEST, WORKGROUP } from './common.js';

export const argmaxShader = ({ vocab }) => /* wgsl */ `
const V: u32 = ${vocab}u;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read_write> ids: array<u32>;
var<workgroup> bestValue: array<f32, ${WORKGROUP}>;
var<workgroup> bestIndex: array<u32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let base = wg.x * V;
  var value = ${LOWEST};
  var index = V;
  for (var i = lid; i < V; i = i + ${WORKGROUP}u) {
    if (logits[base + i] > value) { value = logits[base + i]; index = i; }
  }
  bestValue[lid] = value;
  bestIndex[lid] = index;
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) {
      let v = bestValue[lid + stride];
      let k = bestIndex[lid + stride];
      if (v > bestValue[lid] || (v == bestValue[lid] && k < bestIndex[lid])) { bestValue[lid] = v; bestIndex[lid] = k; }
    }
    workgroupBarrier();
  }
  if (lid == 0u) { ids[wg.x] = bestIndex[0]; }
}
`;
