// The modeled server's fixed choices (the hardware switch; docs/page.md "Hardware"), and a choice in
// words. The GPUs, models and formats are the module's (rooflinePresets()), never listed here.

import { CATALOG } from '../generated/catalog.js';
import { count } from '../shared/format.js';

export const MEASURED = 'measured'; // the switch's value for this device: the default, always
export const WEBGPU = 'webgpu'; // this device's GPU, measured through WebGPU (the lab's backend)

export const MAX_SLOTS = CATALOG.limits.modeled_batch_rows.max; // the modeled tables' largest row count
export const DEFAULT = { model: 'llama-3.1-8b', weights: 'bf16', kv: 'bf16', tp: 1, slots: MAX_SLOTS };

// The tensor-parallel sizes the module takes: powers of two up to max_tp.
export function tpSizes(maxTp) {
  const sizes = [];
  for (let tp = 1; tp <= maxTp; tp *= 2) sizes.push(tp);
  return sizes;
}

// The rows at which the rows gain is shown, and the context it is read at (a column of the modeled table).
export const GAIN_ROWS = [1, 16, 64, 256];
export const GAIN_CONTEXT = 1024;

// The memory comparison's queue: server-sized, so that a real KV budget binds (the lab's queue, prompts up
// to 32 and answers up to 96 tokens, would never fill a GPU's memory). It arrives at `load` times what
// continuous batching with unlimited memory gets through, so that a queue forms and memory decides how
// many requests run at once.
export const SERVER_QUEUE = { count: 1000, prompt: [128, 1024], answer: [32, 2048], seed: 1 };
export const MEMORY_SETTINGS = {
  chunk: 2048,
  block_tokens: 16,
  ttft_target_ms: 1000,
  fractions: [0.5, 1, 1.5],
  load: 1.25,
};

// A model preset's name without its note: "Llama 3.1 8B".
export const modelName = (model) => model.description.replace(/ \(.*$/, '');

// The GPUs of a choice in words: "1 × NVIDIA H100 80GB SXM5".
export function gpuText(choice, presets) {
  const gpu = presets.gpus.find((g) => g.name === choice.gpu);
  return `${choice.tp} × ${gpu ? gpu.description : choice.gpu}`;
}

// How a choice reads in a sentence: "1 × NVIDIA H100 80GB SXM5, Llama 3.1 8B, BF16 weights, BF16 KV cache, 256 slots".
export function choiceText(choice, presets) {
  const model = presets.models.find((m) => m.name === choice.model);
  return `${gpuText(choice, presets)}, ${model ? modelName(model) : choice.model}, ${choice.weights.toUpperCase()} weights, ${choice.kv.toUpperCase()} KV cache, ${count(choice.slots, 'slot')}`;
}
