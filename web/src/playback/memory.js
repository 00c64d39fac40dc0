// The KV memory at simulated time t, from a policy's memory_timeline (the simulator's columns):
// change points {t_ms, held_blocks, used_tokens} (from t_ms on, until the next point), the budget,
// and the preemptions {t_ms, request}.

export function prepareMemory(memory) {
  const held = Int32Array.from(memory.held_blocks);
  let peak = 0;
  for (let i = 0; i < held.length; i += 1) peak = Math.max(peak, held[i]);
  return {
    t_ms: Float64Array.from(memory.t_ms),
    held_blocks: held,
    used_tokens: Float64Array.from(memory.used_tokens),
    budget_blocks: memory.budget_blocks,
    block_tokens: memory.block_tokens,
    peak_blocks: peak,
    // The grid's size: the budget, or with no limit the most ever held.
    blocks: memory.budget_blocks || Math.max(1, peak),
    preempt_t_ms: Float64Array.from(memory.preemptions.t_ms),
    preempt_request: Int32Array.from(memory.preemptions.request),
  };
}

// Index of the last entry of sorted `times` that is <= t (-1 if none).
export function lastAtOrBefore(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

// {held, used_blocks (KV-filled slots in blocks, fractional), preemptions (so far), last_preemption
// ({t_ms, request} or null)}.
export function memoryAt(m, t) {
  const i = lastAtOrBefore(m.t_ms, t);
  const held = i >= 0 ? m.held_blocks[i] : 0;
  const used = i >= 0 ? m.used_tokens[i] / m.block_tokens : 0;
  const p = lastAtOrBefore(m.preempt_t_ms, t);
  return {
    held,
    used_blocks: used,
    preemptions: p + 1,
    last_preemption: p >= 0 ? { t_ms: m.preempt_t_ms[p], request: m.preempt_request[p] } : null,
  };
}
