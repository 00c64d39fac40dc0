// x[r] = the embedding row of row r's token.

import { STEP_UNIFORM, WORKGROUP } from './common.js';

export const embedShader = ({ d }) => /* wgsl */ `
${STEP_UNIFORM}
const D: u32 = ${d}u;
@group(0) @binding(1) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read> embedding: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let r = id.y;
  if (i >= D || r >= step.rows) { return; }
  x[r * D + i] = embedding[tokens[r] * D + i];
}
`;
