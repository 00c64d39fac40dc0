// The hardware the switch offers: this device (the measured table, the default) or a GPU preset, whose step
// table is modeled by the C++ roofline (src/roofline, docs/gpu.md). The names are the C++ presets' names
// (tests/web/hardware.test.mjs checks them against the module's error message, which lists them).

export const MEASURED = 'measured';

export const GPUS = [
  { id: 'h100-sxm', label: 'NVIDIA H100 80GB SXM' },
  { id: 'h200', label: 'NVIDIA H200 141GB' },
  { id: 'a100-sxm', label: 'NVIDIA A100 80GB SXM' },
  { id: 'a100-40gb-sxm', label: 'NVIDIA A100 40GB SXM' },
  { id: 'l4', label: 'NVIDIA L4 24GB' },
  { id: 'rtx-4090', label: 'NVIDIA GeForce RTX 4090 24GB' },
];

export const MODELS = [
  { id: 'llama-3.1-8b', label: 'Llama 3.1 8B' },
  { id: 'llama-2-7b', label: 'Llama 2 7B (no GQA)' },
  { id: 'llama-3.1-70b', label: 'Llama 3.1 70B' },
  { id: 'llama-2-70b', label: 'Llama 2 70B' },
];

export const WEIGHTS = [
  { id: 'bf16', label: 'BF16 weights' },
  { id: 'fp8', label: 'FP8 weights' },
  { id: 'int4', label: 'INT4 weights' },
];

// The rows at which the rows gain is shown, and the context it is read at (a column of the modeled table).
export const GAIN_ROWS = [1, 16, 64, 256];
export const GAIN_CONTEXT = 1024;

// The queue of the memory comparison: server-sized, so that a real KV budget binds (the lab's queue, of
// prompts up to 32 and answers up to 96 tokens, would never fill a GPU's memory).
export const SERVER_QUEUE = { count: 1000, prompt: [128, 1024], answer: [32, 2048], seed: 1 };
export const MEMORY_SETTINGS = { chunk: 2048, block_tokens: 16, ttft_target_ms: 1000, fractions: [0.5, 1, 1.5] };
