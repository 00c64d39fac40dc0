// Policy names, labels and colours, and the published lab's figures for comparison.

export function policyLabel(name) {
  const [kind, size] = name.split(':');
  switch (kind) {
    case 'serial-nocache': return 'One at a time, no cache';
    case 'serial-cache': return 'One at a time, with cache';
    case 'static': return `Static batches of ${size}`;
    case 'continuous': return `Continuous batching, ${size} slots`;
    case 'reserve': return `Reserve, ${size} slots`;
    case 'paged': return `Paged, ${size} slots`;
    case 'chunked': {
      const [b, t] = String(size).split(',');
      return `Chunked prefill, ${b} slots, ${t} tokens/step`;
    }
    default: return name;
  }
}

// Colours with at least 3:1 contrast on white, told apart by dash pattern too.
const STYLE = {
  'serial-nocache': { color: '#b54708', dash: [2, 3] },
  'serial-cache': { color: '#1d5fa8', dash: [8, 4] },
  static: { color: '#8a3f8f', dash: [4, 2, 1, 2] },
  continuous: { color: '#0a7a5a', dash: [] },
  reserve: { color: '#b42318', dash: [6, 3] },
  paged: { color: '#1d5fa8', dash: [] },
  chunked: { color: '#8a3f8f', dash: [2, 2] },
};

// What each memory policy does, in a few words (the Memory section's table).
export const MEMORY_POLICY_NOTES = {
  continuous: 'no memory limit (reference)',
  reserve: 'reserves prompt + longest answer at admission',
  paged: 'blocks on demand, preempts by recompute',
  chunked: 'paged, prompts fused into decode steps',
};

export function policyStyle(name) {
  return STYLE[name.split(':')[0]] || { color: '#333333', dash: [] };
}

export const PUBLISHED_LABEL = 'Apple M2 Pro, JavaScript, published';

// The published lab's table for its queue: 1,000 requests at t = 0, prompts 8-32, answers 16-96, 16 slots.
export const PUBLISHED_POLICIES = [
  { policy: 'serial-nocache', median_ttft_s: 452.2, p95_ttft_s: 851.5, makespan_s: 892.3, tokens_per_s: 64 },
  { policy: 'serial-cache', median_ttft_s: 23.9, p95_ttft_s: 45.1, makespan_s: 47.3, tokens_per_s: 1203 },
  { policy: 'static:16', median_ttft_s: 21.2, p95_ttft_s: 40.5, makespan_s: 42.8, tokens_per_s: 1331 },
  { policy: 'continuous:16', median_ttft_s: 13.8, p95_ttft_s: 26.4, makespan_s: 27.8, tokens_per_s: 2044 },
];

// Part A published: one answer (16 prompt tokens, 48 answer tokens) and one decode step at context 64.
export const PUBLISHED_PART_A = {
  nocache_ms: 567.05,
  cache_ms: 39.19,
  ratio: 14.5,
  context: 64,
  decode_1_ms: 0.751,
  decode_16_ms: 6.482,
  speedup_16: 1.85,
};
