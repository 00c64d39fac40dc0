// What the kernels share: the step's row count (a uniform written before each step, binding 0, for the
// kernels whose threads cover rows; the others get a workgroup per row) and the threads of a workgroup. The model's sizes are WGSL constants baked into each kernel when it is compiled.

export const WORKGROUP = 64;

export const STEP_UNIFORM = /* wgsl */ `
struct Step { rows: u32 }
@group(0) @binding(0) var<uniform> step: Step;
`;

// The most negative finite float (a literal of it does not parse as f32 in every compiler).
export const LOWEST = 'bitcast<f32>(0xff7fffffu)';

// A tree reduction over `red` (WORKGROUP floats) with `op`, every thread taking part.
export const reduce = (op) => /* wgsl */ `
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { red[lid] = ${op}(red[lid], red[lid + stride]); }
    workgroupBarrier();
  }`;
