// A lab result's GPU facts for its environment: the adapter (environment.gpu) and whether WebGPU ran the
// lab (environment.webgpu = {available, reason}); nothing for a run that did not ask for the GPU.
export function gpuEnvironment(result) {
  if (!result || !result.webgpu) return {};
  const { gpu = null, available, reason } = result.webgpu;
  return { gpu, webgpu: { available, reason } };
}
