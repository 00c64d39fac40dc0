// Policy names, labels and colours (the registry's, through the catalog), and the published lab's
// figures for comparison.

import { CATALOG } from '../generated/catalog.js';
import { count } from './format.js';

// Each family's traits (src/policy/policy_registry.cpp, through the module's catalog), by family name, in
// the registry's row order.
const FAMILIES = new Map(CATALOG.policies.map((traits) => [traits.family, traits]));

// A policy name's parts, the one place the page reads the name:B,T syntax: "chunked:8,64" -> {family:
// 'chunked', slots: 8, stepTokens: 64}; a serial policy ("serial-cache") runs 1 slot and no step tokens.
// The module checks names; this only reads them.
export function parsePolicyName(name) {
  const [family, parameters = ''] = String(name).split(':');
  const [b, t] = parameters.split(',').map(Number);
  return {
    family,
    slots: Number.isInteger(b) && b > 0 ? b : 1,
    stepTokens: Number.isInteger(t) && t > 0 ? t : null,
  };
}

// A policy name's family traits ("paged:8" -> paged's), or undefined for a name no family has.
export function policyTraits(name) {
  return FAMILIES.get(parsePolicyName(name).family);
}

// B of "static:B", "paged:B" or "chunked:B,T"; 1 for the serial policies.
export function policySlots(name) {
  return parsePolicyName(name).slots;
}

// The registry's row order of a policy name's family (unknown names last).
export function policyOrder(name) {
  const traits = policyTraits(name);
  return traits ? CATALOG.policies.indexOf(traits) : CATALOG.policies.length;
}

// Whether a policy name's family has `trait` (a predicate on the traits, such as one of POLICY_ROLES).
export function policyIs(name, trait) {
  const traits = policyTraits(name);
  return traits !== undefined && trait(traits);
}

// The first policy name of `names` whose family has `trait`.
export function findPolicy(names, trait) {
  return names.find((name) => policyIs(name, trait));
}

// The policies the page's sentences compare, each picked by its traits rather than its name.
export const POLICY_ROLES = {
  oneAtATime: (t) => t.admission === 'one_at_a_time',
  noCache: (t) => !t.caches_kv,
  oneAtATimeWithCache: (t) => t.admission === 'one_at_a_time' && t.caches_kv,
  staticBatches: (t) => t.admission === 'whole_batches',
  continuous: (t) => t.admission === 'freed_slots' && !t.takes_kv_budget,
  memoryBudget: (t) => t.takes_kv_budget,
  reserve: (t) => t.takes_kv_budget && !t.keeps_kv_in_blocks,
  paged: (t) => t.keeps_kv_in_blocks && !t.runs_mixed_steps,
};

// The policy name of `family` with batch size `b` and step tokens `t`, as many as it takes ("paged:8",
// "chunked:8,64", "serial-cache").
export function policyNameOf(family, b, t) {
  const { parameters } = FAMILIES.get(family);
  if (parameters === '') return family;
  return parameters === 'B,T' ? `${family}:${b},${t}` : `${family}:${b}`;
}

export function policyLabel(name) {
  const traits = policyTraits(name);
  if (!traits) return name;
  const { slots, stepTokens } = parsePolicyName(name);
  // "1 slot", not "1 slots".
  return traits.label
    .replace('{B} slots', count(slots, 'slot'))
    .replace('{B}', String(slots))
    .replace('{T}', String(stepTokens));
}

// A policy in a word or two, under a bar.
export function shortPolicyLabel(name) {
  const traits = policyTraits(name);
  return traits ? traits.short_label : name;
}

// Colours with at least 3:1 contrast on white, told apart by dash pattern too.
export function policyStyle(name) {
  const traits = policyTraits(name);
  return traits ? { color: traits.colour, dash: traits.dash } : { color: '#333333', dash: [] };
}

// What a policy does, in a few words (the Memory section's table).
export function policyHelp(name) {
  const traits = policyTraits(name);
  return traits ? traits.help : '';
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
