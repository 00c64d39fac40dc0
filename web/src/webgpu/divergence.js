// Where the GPU's greedy tokens leave the CPU's, and by how much the CPU's logits preferred its own token
// there: float rounding can flip a near-tie, and the gap says whether that is what happened (a tiny gap)
// or the GPU is wrong (a large one). Run only when the tokens differ.

import reference from '../../reference/model.js';

// -> null when equal, else {index, cpu_token, gpu_token, cpu_logit_gap}
export function firstDivergence(weights, prompt, cpuTokens, gpuTokens) {
  const index = cpuTokens.findIndex((token, i) => token !== gpuTokens[i]);
  if (index < 0) return null;
  const model = reference.createModel(weights);
  const cache = model.newCache();
  const fed = [...prompt, ...cpuTokens.slice(0, index)];
  let logits = null;
  fed.forEach((token, position) => {
    logits = model.step(cache, token, position);
  });
  const cpuToken = cpuTokens[index];
  const gpuToken = gpuTokens[index];
  return { index, cpu_token: cpuToken, gpu_token: gpuToken, cpu_logit_gap: logits[cpuToken] - logits[gpuToken] };
}
