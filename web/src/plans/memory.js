// What the Memory section computes, run inside a job worker with the wasm module `m` (no DOM here):
// every simulation is m.simulate() on the step table the lab already measured (nothing is measured again).
//
//   1. continuous:B on the queue all at t = 0: the most requests per second the server gets through
//      (count / makespan), which sets the load curve's rates (and the 'auto' rate: AUTO_LOAD of it);
//   2. the memory policies at the chosen Poisson rate under the KV budget (blocks over time, waste, ...),
//      with their whole-queue playback (queue_timeline, memory_timeline: the walkthrough's memory chapter);
//   3. paged:B with no budget on the same queue: the blocks the queue would hold with unlimited memory
//      (paged:B without a limit is continuous:B to the bit);
//   4. the load curve: every policy under the budget at Poisson rates from a quarter to twice that.
//
// On a real model the queue is the lab's story requests (options.stories, lab-queue.js), served as an
// explicit workload whose arrivals at each rate are the workload generator's for the lab's settings
// (m.workload()), so that a story queue arrives as the generated one of the same seed does.

import { explicitStoryWorkload } from './lab-queue.js';
import { CATALOG } from '../generated/catalog.js';
import { POLICY_ROLES, policyNameOf } from '../shared/policies.js';

// The 'auto' arrival rate: this share of the requests per second continuous:B gets through with the
// whole queue at once on this device's step table (device speeds differ tenfold, so no fixed rate
// would load every device alike).
export const AUTO_LOAD = 0.8;

export const LOAD_FRACTIONS = [0.25, 0.5, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2];

// Continuous batching (the reference, no memory limit) and every policy served within a KV budget, in
// the registry's order: continuous:B, reserve:B, paged:B, chunked:B,T.
export function memoryPolicies(slots, chunk) {
  return CATALOG.policies
    .filter((traits) => POLICY_ROLES.continuous(traits) || traits.takes_kv_budget)
    .map((traits) => policyNameOf(traits.family, slots, chunk));
}

// The name of the first family with `trait`, with batch size `slots`.
function nameWith(trait, slots) {
  return policyNameOf(CATALOG.policies.find(trait).family, slots);
}

// Two significant digits, so that the rates read well on an axis.
function roundRate(value) {
  return value > 0 ? Number(value.toPrecision(2)) : value;
}

function slim(metrics) {
  const out = { ...metrics };
  delete out.requests;
  delete out.timeline;
  return out;
}

// options: {steps, workload: {count, prompt, answer, seed, system_prompt}, stories? (the lab's story
//           requests, lab-queue.js's storyRequests(): they replace the generated prompts and answers),
//           slots, chunk, kv_tokens, block_tokens, rate (requests/s or 'auto'), ttft_target_ms,
//           fractions?, load? (the 'auto' rate's share of the capacity; AUTO_LOAD unless given)}
export function runMemoryPlan(m, options, progress = () => {}) {
  const { steps, workload, stories, slots, chunk } = options;
  const policies = memoryPolicies(slots, chunk);
  const continuous = nameWith(POLICY_ROLES.continuous, slots);
  const fractions = options.fractions || LOAD_FRACTIONS;
  const budget = {
    kv_tokens: options.kv_tokens,
    block_tokens: options.block_tokens,
    ttft_target_ms: options.ttft_target_ms,
    timeline_requests: 0,
  };
  const systemPrompt = workload.system_prompt || 0;
  const allAtZero = stories
    ? explicitStoryWorkload(stories, new Array(workload.count).fill(0), systemPrompt)
    : { ...workload, arrival: { kind: 'all-at-zero' } };
  const generatedAt = (rate) => ({ ...workload, arrival: { kind: 'poisson', rate_per_s: rate } });
  const at = (rate) =>
    stories
      ? explicitStoryWorkload(stories, m.workload(generatedAt(rate)).arrival_ms, systemPrompt)
      : generatedAt(rate);
  const total = 3 + fractions.length;
  let done = 0;
  const tick = (phase) => {
    done += 1;
    progress(done / total, phase);
  };

  progress(0, 'finding the server’s capacity');
  const saturated = m.simulate(steps, allAtZero, [continuous], {
    timeline_requests: 0,
  })[continuous];
  const capacity = saturated.makespan_ms > 0 ? workload.count / (saturated.makespan_ms / 1000) : null;
  const rate = options.rate === 'auto' ? roundRate((options.load ?? AUTO_LOAD) * (capacity || 1)) : options.rate;
  tick('simulating the memory policies');

  const served = at(rate);
  const main = m.simulate(steps, served, policies, { ...budget, queue_timeline: true });
  const policyResults = {};
  for (const name of policies) policyResults[name] = slim(main[name]);
  tick('simulating unlimited memory');

  const unlimitedName = nameWith(POLICY_ROLES.paged, slots);
  const unlimited = slim(
    m.simulate(steps, served, [unlimitedName], {
      block_tokens: options.block_tokens,
      ttft_target_ms: options.ttft_target_ms,
      timeline_requests: 0,
    })[unlimitedName]
  );
  tick('load curve');

  const rates = capacity
    ? Array.from(new Set(fractions.map((f) => roundRate(capacity * f)))).sort((a, b) => a - b)
    : [];
  const load = { rates, policies: {} };
  for (const name of policies)
    load.policies[name] = { p95_ttft_ms: [], median_ttft_ms: [], goodput_pct: [], makespan_ms: [] };
  for (const rate of rates) {
    const r = m.simulate(steps, at(rate), policies, budget);
    for (const name of policies) {
      for (const key of ['p95_ttft_ms', 'median_ttft_ms', 'goodput_pct', 'makespan_ms'])
        load.policies[name][key].push(r[name][key]);
    }
    tick(`load curve: ${rate} requests/s`);
  }
  // The rest of the fractions' ticks (duplicates merged), so that progress ends at 1.
  progress(1, 'done');

  return {
    policies,
    results: policyResults,
    unlimited: { policy: unlimitedName, ...unlimited },
    capacity_per_s: capacity,
    capacity_makespan_ms: saturated.makespan_ms,
    load,
    rate,
    rate_auto: options.rate === 'auto',
    workload: served,
    simulate_options: budget,
  };
}
