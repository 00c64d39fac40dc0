// Chapter 2's words.

import { int, ms, ratio, sig } from '../../shared/format.js';

export const TITLE = 'The KV cache';

export const WAITING = 'When the lab runs, both paths answer the same prompt on this device, and race here.';

export function tokensNote(answer) {
  return Array.isArray(answer.pieces)
    ? 'Words: a real model’s answer after its prompt, each piece one token as its tokenizer writes it (hover a piece for its id).'
    : 'Token ids: this model has random weights, so its output is a sequence of ids, not words.';
}

export function explanation(answer) {
  return [
    `The same ${int(answer.prompt_tokens)}-token prompt${typeof answer.prompt_text === 'string' ? ` (“${answer.prompt_text.trim()}”)` : ''}, answered with ${int(answer.answer_tokens)} tokens twice on this device: once recomputing everything for every token, once keeping the keys and values in a cache. Each token appears when its path produced it, ${answer.provisional ? 'in the first run of each path; the median of all runs replaces it when they are done' : `in the run whose time is the median of ${int(answer.runs)}`}.`,
    `Without a cache: ${ms(answer.nocache_ms.median, 4)}. With it: ${ms(answer.cache_ms.median, 4)}, ${ratio(answer.ratio)} faster${answer.provisional ? ' (first runs)' : ` (medians of ${int(answer.runs)} runs)`}. The gap grows along the answer, since each uncached token reruns a longer sequence.`,
    answer.identical_tokens
      ? 'The two answers are the same token for token (marked ✓): the cache changes how much is computed, not what.'
      : 'The two answers differ (marked ✗ where they do): the paths should agree, so this device disagrees with the reference.',
  ];
}

export function speedNote(speed) {
  return speed > 1 ? `Played ${sig(speed, 2)}× faster than it ran.` : 'Played at the speed it ran.';
}

export function lane(label, count, total) {
  return `${label}: ${int(count)} of ${int(total)} tokens`;
}

export function announcement(answer) {
  return `without a cache ${ms(answer.nocache_ms.median, 4)}, with it ${ms(answer.cache_ms.median, 4)}, ${ratio(answer.ratio)} faster; ${answer.identical_tokens ? 'identical tokens' : 'the tokens differ'}.`;
}
