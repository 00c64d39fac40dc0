// This browser's GPU through WebGPU: the adapter and a device on it, or the reason there is none, in
// words the page can show as they are ({available: false, reason}). Works in a page and in a worker.

import { SHADER_F16 } from './precision.js';

// The adapter limits that bound what the model may hold (weights and KV cache) and how it dispatches.
const LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxComputeWorkgroupStorageSize',
];

// A software adapter runs the shaders on the CPU: its timings say nothing about graphics hardware.
export const isSoftwareAdapter = (info) =>
  Boolean(
    info && (info.is_fallback || /swiftshader|llvmpipe|warp|software/i.test(`${info.architecture} ${info.description}`))
  );

// The adapter as the result records it (environment.gpu).
export function describeAdapter(adapter) {
  const info = adapter.info || {};
  const limits = {};
  for (const name of LIMITS) limits[name] = adapter.limits[name];
  const described = {
    vendor: info.vendor || '',
    architecture: info.architecture || '',
    device: info.device || '',
    description: info.description || '',
    is_fallback: Boolean(info.isFallbackAdapter),
    features: [...adapter.features].sort(),
    limits,
  };
  described.software = isSoftwareAdapter(described);
  return described;
}

// -> {available: true, reason: '', adapter, device, gpu (describeAdapter), timestamps} or
//    {available: false, reason}. The device asks for the adapter's largest buffers (the KV budget), its
//    timestamps and its 16-bit shaders where it offers them.
export const NO_WEBGPU = 'This browser does not offer WebGPU (navigator.gpu is missing).';

export async function acquireGpu(gpu = globalThis.navigator && globalThis.navigator.gpu) {
  if (!gpu) return { available: false, reason: NO_WEBGPU };
  let adapter = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    return { available: false, reason: `WebGPU refused an adapter: ${error.message}` };
  }
  if (!adapter)
    return {
      available: false,
      reason:
        'WebGPU is present but offers no adapter (no usable GPU, or the browser keeps WebGPU off here, as headless Chromium does without --enable-unsafe-webgpu).',
    };
  const timestamps = adapter.features.has('timestamp-query');
  try {
    const device = await adapter.requestDevice({
      requiredFeatures: ['timestamp-query', SHADER_F16].filter((name) => adapter.features.has(name)),
      requiredLimits: {
        maxBufferSize: adapter.limits.maxBufferSize,
        maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
        maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
      },
    });
    return { available: true, reason: '', adapter, device, gpu: describeAdapter(adapter), timestamps };
  } catch (error) {
    return { available: false, reason: `The GPU adapter would not open a device: ${error.message}` };
  }
}
