// out[r] = x[r] · weight / sqrt(mean(x[r]²) + 1e-5), one workgroup a row. 1e-5 is every preset's epsilon,
// and the GPU runs presets only (worker/lab.js).

import { WORKGROUP, reduce } from './common.js';

export const rmsnormShader = ({ d }) => /* wgsl */ `
const D: u32 = ${d}u;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
var<workgroup> red: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let base = wg.x * D;
  var sum = 0.0;
  for (var i = lid; i < D; i = i + ${WORKGROUP}u) { sum = sum + x[base + i] * x[base + i]; }
  red[lid] = sum;
  workgroupBarrier();
  ${reduce('add')}
  let scale = 1.0 / sqrt(red[0] / f32(D) + 1e-5);
  for (var i = lid; i < D; i = i + ${WORKGROUP}u) { out[base + i] = x[base + i] * scale * weight[i]; }
}
fn add(a: f32, b: f32) -> f32 { return a + b; }
`;
