// The GPU in words, for the environment panel and the lab's status line: the adapter, and plainly when it
// is a software adapter, whose timings say nothing about graphics hardware.

import { bytes } from '../shared/format.js';

export function softwareWords(gpu) {
  return `${/swiftshader/i.test(gpu.architecture) ? 'SwiftShader' : 'A software adapter'}: your CPU emulating a GPU, not a GPU`;
}

// webgpu: a result's {available, reason}; gpu: its adapter (device.js describeAdapter), when one was found.
export function adapterWords({ gpu, webgpu }) {
  if (!gpu) return `not available: ${webgpu.reason}`;
  const name = [gpu.vendor, gpu.architecture].filter(Boolean).join(' ') || 'unnamed adapter';
  const parts = [
    `${name}${gpu.description ? ` (${gpu.description})` : ''}`,
    `largest buffer ${bytes(Math.min(gpu.limits.maxBufferSize, gpu.limits.maxStorageBufferBindingSize))}`,
  ];
  if (gpu.software) parts.push(softwareWords(gpu));
  if (!webgpu.available) parts.push(`not used: ${webgpu.reason}`);
  return parts.join('; ');
}

// The sentence after a run that asked for the GPU and ran on the CPU.
export const fallbackWords = (webgpu) => `Ran on the CPU, not the GPU: ${webgpu.reason}`;
