// The Memory section's settings: the KV budget (a device example or a number of tokens), block size,
// arrival rate, shared system prompt, chunked prefill's token budget and the TTFT target; validation
// with messages naming the field and its range; their part of the URL hash. No DOM here.
//
// The device examples, scaled honestly. The page's model is a toy (its KV cache takes a few KiB per
// token), so a real GPU's gigabytes would hold every request of the queue many times over and the
// memory would never bind. What a real device's memory decides is how many requests fit at once: a
// device example takes (device memory − the real model's weights) / its KV bytes per token = the real
// model's KV tokens, counts how many conversations of REAL_CONTEXT tokens that is, and gives this
// queue room for as many of its longest requests (prompt + longest answer − 1 tokens, plus the shared
// system prompt). Activations and the serving runtime's own memory are left out, so a real server
// holds somewhat less.

import { fieldOfErrorPath, parseSpec, rangeText, show } from '../../shared/fields.js';
import { CATALOG } from '../../generated/catalog.js';
import { kvBytesPerToken } from '../kv-calculator/index.js';

export const REAL_CONTEXT = 4096;
const GIB = 1024 ** 3;

// The models are the GPU model's (the module's catalog): their parameters, and their KV bytes per token
// at 16 bits, by the KV calculator's formula.
function device(id, gpu, gib, modelName, weights, bytesPerParam) {
  const m = CATALOG.real_models.find((x) => x.name === modelName);
  const model = m.description.replace(/ \(.*\)$/, '');
  return {
    id,
    gpu,
    gib,
    model,
    weights,
    params: m.parameters,
    bytes_per_param: bytesPerParam,
    kv_bytes_per_token: kvBytesPerToken({
      layers: m.n_layers,
      kv_heads: m.n_kv_heads,
      head_dim: m.head_dim,
      bytes_per_number: 2,
    }),
    label: `${gpu} · ${model}, ${weights}`,
  };
}

export const DEVICES = [
  device('24gb-llama31-8b', '24 GB GPU (e.g. RTX 4090)', 24, 'llama-3.1-8b', '16-bit weights', 2),
  device('24gb-llama2-7b', '24 GB GPU (e.g. RTX 4090)', 24, 'llama-2-7b', '16-bit weights, no GQA', 2),
  device('80gb-llama31-8b', '80 GB GPU (e.g. A100, H100)', 80, 'llama-3.1-8b', '16-bit weights', 2),
  device('80gb-llama31-70b-fp8', '80 GB GPU (e.g. H100)', 80, 'llama-3.1-70b', '8-bit weights', 1),
];

export const DEVICE_IDS = DEVICES.map((d) => d.id);

export const MEM_DEFAULTS = Object.freeze({
  kv: '80gb-llama31-70b-fp8', // a device id, or a number of tokens
  block: 16,
  mem_rate: 'auto', // requests/s, or 'auto': AUTO_LOAD (plans/memory.js) of what the server gets through
  system_prompt: 0,
  chunk: 256,
  ttft_target: 1000,
});

export const MEM_HASH_KEYS = Object.keys(MEM_DEFAULTS);

const LIMITS = CATALOG.limits;

// Specs of the plain numeric fields; `kv` and `chunk` depend on the lab's queue and are checked below.
export const MEM_FIELDS = {
  kv: { label: 'KV budget (tokens)', kind: 'int', ...LIMITS.kv_tokens },
  block: { label: 'Block size (tokens)', kind: 'int', ...LIMITS.block_tokens },
  mem_rate: { label: 'Memory arrival rate (requests/s, or auto)', kind: 'number', ...LIMITS.rate_per_s },
  system_prompt: { label: 'Shared system prompt (tokens)', kind: 'int', min: 0, max: LIMITS.tokens.max },
  chunk: { label: 'Chunked prefill budget T (tokens per step)', kind: 'int', ...LIMITS.step_tokens },
  ttft_target: { label: 'TTFT target (ms)', kind: 'number', min: 0.001, max: 1e9 },
};

export const MEM_ORDER = Object.keys(MEM_FIELDS);

// The positions the queue's longest request holds: its system prompt, its prompt, and every answer
// token but the last (prompt + answer − 1). `lab`: the lab's settings (prompt_hi, answer_hi).
export function longestRequest(mem, lab) {
  return (mem.system_prompt || 0) + lab.prompt_hi + lab.answer_hi - 1;
}

// A device example, worked through: {free_bytes, real_tokens, conversations, tokens}.
export function deviceBudget(device, mem, lab) {
  const free = device.gib * GIB - device.params * device.bytes_per_param;
  const realTokens = Math.max(0, Math.floor(free / device.kv_bytes_per_token));
  const conversations = realTokens / REAL_CONTEXT;
  const longest = longestRequest(mem, lab);
  return {
    free_bytes: free,
    real_tokens: realTokens,
    conversations,
    longest,
    tokens: Math.floor(conversations * longest),
  };
}

// The budget in tokens that the settings give (a device's scaled budget, or the number itself).
export function kvTokens(mem, lab) {
  if (typeof mem.kv === 'number') return mem.kv;
  const device = DEVICES.find((d) => d.id === mem.kv);
  return device ? deviceBudget(device, mem, lab).tokens : null;
}

// The smallest budget that takes the queue's longest request: whole blocks.
export function minimumTokens(mem, lab) {
  const block = mem.block || MEM_DEFAULTS.block;
  return Math.ceil(longestRequest(mem, lab) / block) * block;
}

// raw: strings by key (form or hash; a missing key keeps its default). lab: the lab's valid settings,
// with max_seq, longest_positions and model_name where its last run says them (plans/lab-queue.js).
// Returns {settings, errors: {key: message}}.
export function validateMemory(raw, lab) {
  const settings = { ...MEM_DEFAULTS };
  const errors = {};
  for (const key of MEM_ORDER) {
    if (raw[key] === undefined) continue;
    if (key === 'mem_rate' && String(raw.mem_rate).trim() === 'auto') {
      settings.mem_rate = 'auto';
      continue;
    }
    if (key === 'kv') {
      const text = String(raw.kv).trim();
      if (DEVICE_IDS.includes(text)) {
        settings.kv = text;
        continue;
      }
      if (!/^[+]?\d/.test(text) && text !== '') {
        errors.kv = `KV budget must be a whole number of tokens or one of ${DEVICE_IDS.join(', ')} (got ${show(text)}).`;
        continue;
      }
    }
    const r = parseSpec(MEM_FIELDS[key], raw[key]);
    if (r.error) errors[key] = r.error;
    else settings[key] = r.value;
  }
  // What depends on the lab's queue: the budget must take its longest request, T at least B rows.
  if (!errors.kv && !errors.block && !errors.system_prompt) {
    const need = minimumTokens(settings, lab);
    const tokens = kvTokens(settings, lab);
    const why = `the longest request of this queue (${settings.system_prompt ? `system prompt ${settings.system_prompt} + ` : ''}prompt up to ${lab.prompt_hi} + answer up to ${lab.answer_hi} − 1 = ${longestRequest(settings, lab)} positions) needs ${need / settings.block} blocks of ${settings.block} tokens`;
    if (tokens < need) {
      errors.kv =
        typeof settings.kv === 'number'
          ? `${MEM_FIELDS.kv.label} must be from ${rangeText(need, LIMITS.kv_tokens.max)}: ${why} (got ${show(raw.kv)}).`
          : `KV budget: the ${settings.kv} example gives only ${tokens} tokens, but ${why}; choose another device or a number of tokens.`;
    }
  }
  // The model's context must hold the shared system prompt before the queue's longest request.
  if (!errors.system_prompt && lab.max_seq && lab.longest_positions && lab.model_name) {
    const most = lab.max_seq - lab.longest_positions;
    if (settings.system_prompt > most) {
      errors.system_prompt = `${MEM_FIELDS.system_prompt.label} must be from ${rangeText(0, most)}: the ${lab.model_name} model’s context holds ${lab.max_seq} positions, and this queue’s longest request takes ${lab.longest_positions} of them after the system prompt (prompt + answer − 1) (got ${show(raw.system_prompt)}).`;
    }
  }
  // T left at its default grows to the slot count, the least a step can hold.
  if (raw.chunk === undefined) settings.chunk = Math.max(settings.chunk, lab.slots);
  if (!errors.chunk && settings.chunk < lab.slots) {
    errors.chunk = `${MEM_FIELDS.chunk.label} must be from ${rangeText(lab.slots, LIMITS.step_tokens.max)}: a step holds a decode row for each of the ${lab.slots} slots (got ${show(raw.chunk)}).`;
  }
  return { settings, errors };
}

export function memoryToHash(mem) {
  const p = new URLSearchParams();
  for (const key of MEM_HASH_KEYS) if (mem[key] !== MEM_DEFAULTS[key]) p.set(key, String(mem[key]));
  return p.toString();
}

export function memoryToRaw(mem) {
  const raw = {};
  for (const key of MEM_ORDER) raw[key] = String(mem[key]);
  return raw;
}

// The Memory section's control of each field of its simulate() calls (plan.js), by the path the module
// names in an error about it. Of the policy names only chunked's T comes from this form (B is the lab's
// slots, which its own form checks).
const MEM_FIELD_OF_PATH = {
  'options.kv_tokens': 'kv',
  'options.kv_bytes': 'kv',
  'options.block_tokens': 'block',
  'options.ttft_target_ms': 'ttft_target',
  'workload.arrival.rate_per_s': 'mem_rate',
  'workload.system_prompt': 'system_prompt',
  // A request past the model's context (steps.model.max_seq), named by its answer or prompt (the upper
  // end of a generated range, or an explicit request's): the lab's queue fits, so the system prompt
  // this form adds is what made it too long.
  'workload.answer': 'system_prompt',
  'workload.prompt': 'system_prompt',
  'workload.requests': 'system_prompt',
  policies: 'chunk',
};

// Which field a module error is about, from its path (error.path): a key of MEM_FIELDS, or null.
export function memFieldOfModuleError(path) {
  return fieldOfErrorPath(path, MEM_FIELD_OF_PATH);
}
