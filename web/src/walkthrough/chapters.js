// The chapters in the order of the argument, and which part of a run each one draws.

import * as tokens from '../chapters/tokens/index.js';
import * as cache from '../chapters/cache/index.js';
import * as rows from '../chapters/rows/index.js';
import * as queue from '../chapters/queue/index.js';
import * as memory from '../chapters/memory/index.js';

export const CHAPTERS = [tokens, cache, rows, queue, memory];

// parts: { first_answer, answer, steps, result, memory } as they have arrived (first_answer: Part A
// from the first run of each path, marked provisional). Returns the chapter's data, or null.
export function dataFor(name, parts) {
  switch (name) {
    case 'tokens': // only the lengths matter: drawn once, from the first answer
      return parts.first_answer || parts.answer || null;
    case 'cache': // the first answer's race, then the medians of all runs
      return parts.answer || parts.first_answer || null;
    case 'rows':
      return parts.steps || null;
    case 'queue':
      return parts.result || null;
    case 'memory':
      return parts.memory || null;
    default:
      return null;
  }
}
