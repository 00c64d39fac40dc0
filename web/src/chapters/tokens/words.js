// Chapter 1's words.

import { int, sig } from '../../shared/format.js';

export const TITLE = 'One token at a time';

export const WAITING = 'When the lab runs, this chapter draws the prompt and answer lengths of the run.';

export function explanation(answer, rows) {
  const P = answer.prompt_tokens;
  const N = answer.answer_tokens;
  return [
    `A language model writes one token at a time, and each new token needs the keys and values of every token before it. Your run asked for ${int(N)} tokens after a prompt of ${int(P)}.`,
    `Without a cache, the model forgets those keys and values after each token, so token k runs the whole sequence again: ${int(P)} + k − 1 rows through every layer. Over the answer that is N·P + N(N−1)/2 = ${int(rows.nocache_total)} rows (each column of the drawing “Without a cache”; the pale part was computed before).`,
    `With a KV cache, the prompt goes through once (${int(P)} rows) and every later token is a single new row: P + N − 1 = ${int(rows.cache_total)} rows, ${sig(rows.nocache_total / rows.cache_total, 3)}× fewer.`,
  ];
}

export function announcement(rows) {
  return `${int(rows.nocache_total)} rows without a cache against ${int(rows.cache_total)} with one.`;
}
