// A link's hash as the bench reads it: every key a link may hold (the lab's, the Memory section's and the
// hardware switch's, which share the hash), and its values as strings, with what was wrong in it.

import { MAX_HASH_CHARS, RANGE_KEYS } from '../../config.js';
import { show } from '../../shared/fields.js';
import { MEM_HASH_KEYS } from '../memory/config.js';
import { HW_HASH_KEYS } from '../hardware/hash.js';

// The lab's keys, the Memory section's, then the hardware switch's (the GPU the queue and memory
// chapters model).
export const HASH_KEYS = [
  'model',
  'preset',
  'weights',
  'kv_format',
  'runs',
  'prompt_tokens',
  'answer_tokens',
  'requests',
  'prompt',
  'answer',
  'slots',
  'arrival',
  'rate',
  'seed',
  'backend',
  'threads',
  ...MEM_HASH_KEYS,
  ...HW_HASH_KEYS,
  'autorun',
];

// Reads a hash (with or without '#'). Returns {raw, autorun, problems: [message]}; `raw` holds the
// string values to validate. Unknown keys, repeated keys and malformed ranges are problems, not
// silent. A hash longer than any real link (config.js's MAX_HASH_CHARS) is not read at all, and at most
// MAX_HASH_PROBLEMS problems are listed, so a hostile link cannot fill the page with text.
const MAX_HASH_PROBLEMS = 8;

export function parseHash(hash) {
  const text = String(hash || '').replace(/^#/, '');
  const raw = {};
  const problems = [];
  let autorun = false;
  if (!text) return { raw, autorun, problems };
  if (text.length > MAX_HASH_CHARS) {
    return {
      raw,
      autorun,
      problems: [
        `The link’s settings are ${text.length.toLocaleString('en-US')} characters long, more than the ${MAX_HASH_CHARS.toLocaleString('en-US')} a kvlab link can have, so none of them were read.`,
      ],
    };
  }
  let params;
  try {
    params = new URLSearchParams(text);
  } catch (e) {
    return { raw, autorun, problems: ['The link’s settings could not be read.'] };
  }
  const seen = new Set();
  const repeated = new Set();
  let more = 0;
  const problem = (message) => {
    if (problems.length < MAX_HASH_PROBLEMS) problems.push(message);
    else more += 1;
  };
  for (const [key, value] of params) {
    if (!HASH_KEYS.includes(key)) {
      if (!seen.has(key))
        problem(`The link has an unknown setting ${show(key)}; known settings: ${HASH_KEYS.join(', ')}.`);
      seen.add(key);
      continue;
    }
    if (seen.has(key)) {
      if (!repeated.has(key)) problem(`The link sets ${key} more than once; its default is used.`);
      repeated.add(key);
      continue;
    }
    seen.add(key);
    if (key === 'autorun') {
      autorun = value === '' || value === '1' || value === 'true';
      if (!autorun && value !== '0' && value !== 'false')
        problem(`The link’s autorun must be empty, 1 or true (got ${show(value)}), so the lab was not started.`);
      continue;
    }
    if (RANGE_KEYS[key]) {
      const m = /^\s*(\d+)\s*(?:-|–|\.\.)\s*(\d+)\s*$/.exec(value);
      if (!m) {
        problem(`The link’s ${key} range must look like 8-32 (got ${show(value)}).`);
        continue;
      }
      raw[RANGE_KEYS[key][0]] = m[1];
      raw[RANGE_KEYS[key][1]] = m[2];
      continue;
    }
    raw[key] = value;
  }
  // Which of two values was meant is anyone's guess: the default stands in.
  for (const key of repeated) {
    if (key === 'autorun') autorun = false;
    for (const k of RANGE_KEYS[key] || [key]) delete raw[k];
  }
  if (more) problems.push(`…and ${more.toLocaleString('en-US')} more problems in the link.`);
  return { raw, autorun, problems };
}
