// What the replay panel says about the parts that price a pass by what ran before it (docs/replay.md,
// "Decode passes after a prompt pass, measured" and "Prompt passes by the pass before"): how much slower
// this device ran a decode pass just after a prompt pass, how a prompt pass's time moved with the pass
// before it, and what pricing the runs on the step grid alone would have given.

import { sig } from '../../shared/format.js';
import { adapterName, gapWords, softwareWords } from '../../webgpu/words.js';

// Where the passes ran (the job's device: webgpu/replay-device.js), in the summary's brackets.
export const servedWhere = (device) =>
  device.backend === 'webgpu' ? 'on this device’s GPU through WebGPU, from one worker' : 'one worker, WebAssembly SIMD';

// The sentence on the device: the GPU's adapter and check, or why the replay ran on the CPU when the GPU
// was asked for; '' when it was not.
export function deviceSentence(device) {
  if (device.backend === 'webgpu') {
    const software = device.gpu.software ? ` (${softwareWords(device.gpu)})` : '';
    return ` Every forward pass, the step table’s and the served ones, ran on the GPU, ${adapterName(device.gpu)}${software}, float32 weights and KV, each pass’s tokens read back while the worker waited; checked first: ${gapWords(device.self_check)}.`;
  }
  return device.reason ? ` Not on the GPU: ${device.reason}` : '';
}

// The part's figures for the largest measured prompt of at most `rows` rows: its size and the first
// decode pass's ratio.
function firstPassAfter(part, rows) {
  let i = 0;
  while (i + 1 < part.prompt_rows.length && part.prompt_rows[i + 1] <= rows) i += 1;
  return { rows: part.prompt_rows[i], ratio: part.ratio[i][0] };
}

// r: the replay's result; order: its policies; target: the error bound (0.05). '' without the part
// (a model whose steps are too short to time alone, or after_prompt_rounds 0).
export function afterPromptFinding(r, order, target) {
  const part = r.policies[order[0]]?.step_table?.after_prompt;
  if (!part) return '';
  const mid = firstPassAfter(part, 32);
  const big = firstPassAfter(part, 128);
  const within = (error) => error && Math.abs(error.median_ttft) <= target && Math.abs(error.makespan) <= target;
  const withPart = order.filter((n) => within(r.policies[n].error)).length;
  const gridOnly = order.filter((n) => within(r.policies[n].error_grid_only)).length;
  return (
    ` On this device a decode pass right after a prompt pass of ${mid.rows} tokens took ${sig(mid.ratio, 3)}× its time at rest, and after one of ${big.rows} tokens ${sig(big.ratio, 3)}× (measured before the runs)` +
    `${promptPassClause(r.policies[order[0]]?.step_table?.prompt_pass)}; the simulator prices that. ` +
    `Priced on the step grid alone, ${gridOnly} of ${order.length} policies would have been within ±${target * 100}% (with it: ${withPart}).`
  );
}

// The prompt-pass part's figure for the largest measured prompt of at most 32 tokens right after a
// one-row decode pass; '' without the part.
function promptPassClause(part) {
  if (!part) return '';
  let j = 0;
  while (j + 1 < part.tokens.length && part.tokens[j + 1] <= 32) j += 1;
  return `, and a prompt pass of ${part.tokens[j]} tokens right after a one-row decode pass ${sig(part.after_decode[0][j], 3)}× its time right after one of its own`;
}
