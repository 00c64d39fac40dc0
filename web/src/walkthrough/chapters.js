// The chapters in the order of the argument, and which part of a run each one draws.

import tokens from '../chapters/tokens/index.js';
import cache from '../chapters/cache/index.js';
import rows from '../chapters/rows/index.js';

export const CHAPTERS = [tokens, cache, rows];

// parts: { answer, steps, result, memory } as they have arrived. Returns the chapter's data, or null.
export function dataFor(name, parts) {
  switch (name) {
    case 'tokens':
    case 'cache':
      return parts.answer || null;
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
