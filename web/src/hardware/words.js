// The hardware view's sentences: what the modeled numbers say, in words.

import { int, ratio, sig } from '../format.js';

export function describeGain(r) {
  const rows = r.gain.rows;
  const one = rows[0];
  const last = rows[rows.length - 1];
  return `On this GPU one decode step reads every weight once whatever its rows, so ${int(last.rows)} rows cost ${ratio(last.step_ms / one.step_ms)} the time of 1 row and give ${ratio(last.tokens_per_s / one.tokens_per_s)} the tokens per second; the step turns compute-bound from about ${int(r.steps.model.crossover_rows)} rows.`;
}

export function describeMemory(r) {
  const model = r.steps.model;
  const m = r.memory;
  const w = m.workload;
  const reserve = m.results[m.policies.find((n) => n.startsWith('reserve:'))];
  const paged = m.results[m.policies.find((n) => n.startsWith('paged:'))];
  const free = model.device_memory_bytes * (1 - model.memory_reserve_fraction) - model.weight_bytes;
  const faster = reserve.makespan_ms / paged.makespan_ms;
  return `The KV budget is the GPU’s own, in real tokens (no scaling): ${sig(model.device_memory_bytes / 1e9, 3)} GB less ${int(model.memory_reserve_fraction * 100)}% reserved, less ${sig(model.weight_bytes / 1e9, 3)} GB of weights, leaves ${sig(free / 1e9, 3)} GB = ${int(model.kv_budget_tokens)} tokens at ${int(model.kv_bytes_per_token)} bytes each. `
    + `A server-sized queue: ${int(w.count)} requests, prompts ${w.prompt[0]}–${w.prompt[1]}, answers ${w.answer[0]}–${w.answer[1]}, arriving at random at ${sig(m.rate, 3)} per second (80% of what continuous batching gets through), ${int(m.policies[0].split(':')[1])} slots. `
    + (reserve.peak_kv_blocks < reserve.kv_blocks_budget
      ? `Here the memory is not the limit, the slots are: reserve, which holds blocks for the longest answer and wastes ${sig(reserve.waste_pct, 3)}% of them, peaks at ${int(reserve.peak_kv_blocks)} of ${int(reserve.kv_blocks_budget)} blocks, paged at ${int(paged.peak_kv_blocks)} (waste ${sig(paged.waste_pct, 3)}%); on a GPU with less memory (an RTX 4090 or an L4) reserve runs out first.`
      : `Reserve fills all ${int(reserve.kv_blocks_budget)} blocks with room for answers not yet written (waste ${sig(reserve.waste_pct, 3)}%); paged takes blocks only as tokens are written (waste ${sig(paged.waste_pct, 3)}%, ${int(paged.preemptions)} preemptions), so more requests run at once in the same memory${faster > 1.005 ? ` and the queue is done ${ratio(faster)} sooner` : ''}.`);
}
