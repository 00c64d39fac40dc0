// A loaded model in words: its weights as the module holds them (a GGUF file's block formats kept, so a
// Q4_K file takes about 4.5 bits a weight, not 32), its size and its KV cache. model: the module's
// description of it (modelInfo, loadModel's reply: weight_bytes, weight_types, parameters,
// kv_bytes_per_token).

import { bytes, int, sig } from '../shared/format.js';

const STORAGE_WORDS = { f32: 'float32', bf16: 'bfloat16' };

// "37 Q5_0 and 6 Q4_K matrices": the most held first.
function typeMix(types) {
  const parts = Object.entries(types || {})
    .sort(([, a], [, b]) => b - a)
    .map(([type, n]) => `${int(n)} ${STORAGE_WORDS[type] || type}`);
  if (parts.length === 0) return '';
  const listed = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return ` (${listed} matrices)`;
}

export function loadedModelWords(model) {
  const parameters = model.parameters >= 1e6 ? `${sig(model.parameters / 1e6, 3)} M` : int(model.parameters);
  return `Loaded: ${bytes(model.weight_bytes)} of weights as kvlab holds them${typeMix(model.weight_types)}, ${parameters} parameters; its KV cache takes ${bytes(model.kv_bytes_per_token)} a token.`;
}
