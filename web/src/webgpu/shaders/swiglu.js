// The feed-forward's gate: h = silu(gate) · up, gate and up side by side in one product's output.

import { STEP_UNIFORM, WORKGROUP } from './common.js';

export const swigluShader = ({ dFf }) => /* wgsl */ `
${STEP_UNIFORM}
const FF: u32 = ${dFf}u;
@group(0) @binding(1) var<storage, read> gateUp: array<f32>;
@group(0) @binding(2) var<storage, read_write> hidden: array<f32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let r = id.y;
  if (i >= FF || r >= step.rows) { return; }
  let g = gateUp[r * 2u * FF + i];
  hidden[r * FF + i] = (g / (1.0 + exp(-g))) * gateUp[r * 2u * FF + FF + i];
}
`;
