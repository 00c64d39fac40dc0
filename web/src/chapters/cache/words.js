// Chapter 2's words.

import { count, duration, int, ratio, sig } from '../../shared/format.js';
import { noisyAnswerPaths, noisyText } from '../../shared/noisy.js';

export const TITLE = 'The KV cache';

export const WAITING = 'When the lab runs, both paths answer the same prompt on this device, and race here.';

export function tokensNote(answer) {
  return Array.isArray(answer.pieces)
    ? 'Words: a real model’s answer after its prompt, each piece one token as its tokenizer writes it (hover a piece for its id).'
    : 'Token ids: this model has random weights, so its output is a sequence of ids, not words.';
}

// The index of the first token where the two paths differ, or -1.
export function firstDifference(answer) {
  const shorter = Math.min(answer.tokens_nocache.length, answer.tokens_cache.length);
  const at = answer.tokens_nocache.findIndex((token, i) => token !== answer.tokens_cache[i]);
  return at < 0 && answer.tokens_nocache.length !== answer.tokens_cache.length ? shorter : at;
}

// Part A's times in words, each noisy path with its spread; the ratio is a finding only when neither is.
function timesText(answer) {
  const noisy = noisyAnswerPaths(answer);
  const time = (path) => {
    const found = noisy.find((p) => p.path === path);
    return `${duration(answer[`${path}_ms`].median)}${found ? ` (noisy: ${noisyText(found.spread, false)})` : ''}`;
  };
  const runs = answer.provisional
    ? ' (first runs)'
    : ` (${answer.runs === 1 ? 'one run each' : `medians of ${count(answer.runs, 'run')}`})`;
  const compared = noisy.length
    ? `${runs}. With a noisy time, the ratio (${ratio(answer.ratio)}) is not read as the cache’s speed-up: run again when the device is idle.`
    : `, ${ratio(answer.ratio)} faster${runs}. The gap grows along the answer, since each uncached token reruns a longer sequence.`;
  return `Without a cache: ${time('nocache')}. With it: ${time('cache')}${compared}`;
}

export function explanation(answer) {
  const differs = firstDifference(answer);
  return [
    `The same ${int(answer.prompt_tokens)}-token prompt${typeof answer.prompt_text === 'string' ? ` (“${answer.prompt_text.trim()}”)` : ''}, answered with ${count(answer.answer_tokens, 'token')} twice on this device: once recomputing everything for every token, once keeping the keys and values in a cache. Each token appears when its path produced it, ${answer.provisional ? 'in the first run of each path; the median of all runs replaces it when they are done' : answer.runs === 1 ? 'in its one run' : `in the run whose time is the median of ${int(answer.runs)}`}.`,
    timesText(answer),
    answer.identical_tokens
      ? 'The two answers are the same token for token (marked ✓): the cache changes how much is computed, not what.'
      : `The two answers part at token ${int(differs + 1)} (marked ✗ from there): the two paths add the same products in another order, and where two tokens are nearly tied a difference in the last digits picks the other one; each answer then goes on from its own token.`,
  ];
}

export function speedNote(speed) {
  return speed > 1 ? `Played ${sig(speed, 2)}× faster than it ran.` : 'Played at the speed it ran.';
}

export function lane(label, shown, total) {
  return `${label}: ${int(shown)} of ${count(total, 'token')}`;
}

export function announcement(answer) {
  return `without a cache ${duration(answer.nocache_ms.median)}, with it ${duration(answer.cache_ms.median)}, ${ratio(answer.ratio)} faster; ${answer.identical_tokens ? 'identical tokens' : 'the tokens differ'}.`;
}
