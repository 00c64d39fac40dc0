// The GPU in words, for the environment panel and the lab's status line: the adapter, and plainly when it
// is a software adapter, whose timings say nothing about graphics hardware.

import { bytes, count, int, sig } from '../shared/format.js';

export function softwareWords(gpu) {
  return `${/swiftshader/i.test(gpu.architecture) ? 'SwiftShader' : 'A software adapter'}: your CPU emulating a GPU, not a GPU`;
}

// The adapter's name as a result records it (steps.model.adapter).
export const adapterName = (gpu) => gpu.description || `${gpu.vendor} ${gpu.architecture}`.trim();

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

// The most rows a step on this adapter takes and what capped it (rows-limit.js decodeRowsLimit()), for
// a model of maxSeq positions a sequence.
export function rowsLimitWords(limit, maxSeq) {
  const rows = count(limit.rows, 'row');
  const largest = `this adapter’s largest buffer (${bytes(limit.largest_buffer_bytes)})`;
  if (limit.capped_by === 'kv_cache')
    return `${rows}: one layer’s KV cache for ${rows} of ${int(maxSeq)} positions each fills ${largest}`;
  if (limit.capped_by === 'activations')
    return `${rows}: the widest activation (the logits, q|k|v or gate|up) of ${rows} fills ${largest}`;
  return `${rows}, the most the modeled GPU servers’ tables reach; ${largest} would hold the KV cache of ${int(limit.kv_cache_rows)} sequences of ${int(maxSeq)} positions`;
}

// The GPU's weights (steps.model.weights and weights_reason, precision.js) in words.
export function weightWords(model) {
  return model.weights === 'f16'
    ? `its matrices 16-bit (f16: ${model.weights_reason}; the self-check ran the CPU’s reference on the same rounded weights)`
    : `its weights float32 (${model.weights_reason})`;
}

// Under a step table measured on the GPU (steps.model): which adapter, what its timings are worth, and
// how far its rows go.
export function gpuStepsWords(model) {
  const software = model.software_adapter
    ? `, which is ${softwareWords({ architecture: model.adapter })}; its rows gain says nothing about graphics hardware`
    : '';
  return `These steps ran on this device’s GPU through WebGPU (${model.adapter})${software}, ${weightWords(model)}. Its decode steps go to ${rowsLimitWords(model.decode_rows_limit, model.max_seq)}.`;
}

// How close the self-check's logits were to the CPU's (self-check.js).
export const gapWords = (check) => {
  const flips = check.flips.length
    ? `; float rounding flipped ${count(check.flips.length, 'near-tie')} (gap ${sig(Math.min(...check.flips.map((f) => f.gap)), 2)})`
    : '';
  return `its logits within ${sig(check.max_abs_diff, 2)} of the CPU’s (tolerance ${sig(check.tolerance, 2)}), the closest top-two gap ${sig(check.closest_top2_gap, 2)}${flips}`;
};

// The sentence after a run that asked for the GPU (result.webgpu): where it ran, how close it was to the
// CPU, or why it ran on the CPU; '' for a run that did not ask.
export function runWords({ webgpu, answer }) {
  if (!webgpu) return '';
  if (!webgpu.available) return `Ran on the CPU, not the GPU: ${webgpu.reason}`;
  const software = webgpu.gpu.software ? ` (${softwareWords(webgpu.gpu)})` : '';
  const d = answer.divergence;
  const tokens = answer.equal_to_cpu
    ? 'the answer’s tokens are the CPU’s'
    : `the answer’s tokens differ from the CPU’s${d ? ` from token ${int(d.index + 1)}, where the CPU preferred its own by a logit gap of ${sig(d.cpu_logit_gap, 2)}` : ''}`;
  return `Ran on the GPU${software}: ${gapWords(webgpu.self_check)}; ${tokens}.`;
}
