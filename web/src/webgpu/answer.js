// The lab's answer on the GPU: the same prompt as the CPU's answer, greedy tokens with the cache (one
// prefill pass over the prompt, then a decode step a token, each reading back only the token id) and
// without it (a full pass over the prompt and the answer so far for every token), timed on the wall
// clock as a reader waits for them. Its tokens are compared with the CPU's.

import { median } from '../shared/median.js';
import { firstDivergence } from './divergence.js';

const spread = (values) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });
const positionsOf = (n) => Array.from({ length: n }, (_, i) => i);

async function withCache(model, prompt, answerTokens) {
  const start = performance.now();
  const tokens = [];
  const readyMs = [];
  const first = await model.step({ tokens: prompt, positions: positionsOf(prompt.length), slots: prompt.map(() => 0) });
  tokens.push(first.ids[prompt.length - 1]);
  readyMs.push(performance.now() - start);
  while (tokens.length < answerTokens) {
    const position = prompt.length + tokens.length - 1;
    const next = await model.step({ tokens: [tokens[tokens.length - 1]], positions: [position], slots: [0] });
    tokens.push(next.ids[0]);
    readyMs.push(performance.now() - start);
  }
  return { tokens, readyMs };
}

async function withoutCache(model, prompt, answerTokens) {
  const start = performance.now();
  const tokens = [];
  const readyMs = [];
  while (tokens.length < answerTokens) {
    const sequence = [...prompt, ...tokens];
    const pass = await model.step({
      tokens: sequence,
      positions: positionsOf(sequence.length),
      slots: sequence.map(() => 0),
    });
    tokens.push(pass.ids[sequence.length - 1]);
    readyMs.push(performance.now() - start);
  }
  return { tokens, readyMs };
}

// cpu: the CPU's answer (m.measure's), whose prompt and answer length are used; runs: how many times;
// weights: exportWeights(), for the gap where the tokens part (divergence.js).
export async function measureAnswer(model, weights, cpu, runs, progress = () => {}) {
  const prompt = Array.from(cpu.prompt);
  const n = cpu.answer_tokens;
  const cache = [];
  const nocache = [];
  for (let run = 0; run < runs; run += 1) {
    progress(run / runs, 'the answer on the GPU, with and without the cache');
    cache.push(await withCache(model, prompt, n));
    nocache.push(await withoutCache(model, prompt, n));
  }
  const last = (r) => r.readyMs[r.readyMs.length - 1];
  const cacheMs = spread(cache.map(last));
  const nocacheMs = spread(nocache.map(last));
  const tokensCache = cache[0].tokens;
  const tokensNocache = nocache[0].tokens;
  const same = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);
  const cpuTokens = Array.from(cpu.tokens_cache);
  return {
    prompt,
    prompt_tokens: prompt.length,
    answer_tokens: n,
    runs,
    tokens_cache: tokensCache,
    tokens_nocache: tokensNocache,
    identical_tokens: same(tokensCache, tokensNocache),
    equal_to_cpu: same(tokensCache, cpuTokens) && same(tokensNocache, Array.from(cpu.tokens_nocache)),
    cpu_tokens_cache: cpuTokens,
    divergence: firstDivergence(weights, prompt, cpuTokens, tokensCache),
    cache_ms: cacheMs,
    nocache_ms: nocacheMs,
    ratio: nocacheMs.median / cacheMs.median,
    token_ms_cache: cache[0].readyMs,
    token_ms_nocache: nocache[0].readyMs,
    repeats_cache: cache.map(() => 1),
    repeats_nocache: nocache.map(() => 1),
  };
}
