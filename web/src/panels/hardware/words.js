// The hardware view's words: every sentence says "modeled" where it gives a modeled figure, and every
// number comes from the result.

import { bytes, capitalized, count, duration, int, ratio, sig } from '../../shared/format.js';
import { POLICY_ROLES, findPolicy, policyLabel, policySlots } from '../../shared/policies.js';

const PHASES = {
  'modeling the step table': 'Modeling the step table',
  'replaying the lab’s queue under four policies': 'Replaying the lab’s queue under four policies',
};

function describeProgress({ fraction, phase }) {
  const text = PHASES[phase] || phase.replace(/^memory: /, 'Memory policies: ');
  return `${capitalized(text)}… (${Math.floor(fraction * 100)}%)`;
}

const MODELED = 'step times from the roofline, not measured.';

// The switch's status line (run: the store's hardwareRun, runs/hardware-run.js).
export function statusWords(run) {
  if (run.state === 'waiting') return 'Waiting for the run on this device to finish…';
  if (run.state === 'modeling') return run.progress ? describeProgress(run.progress) : 'Modeling the step table…';
  if (run.state === 'failed') return 'Not modeled.';
  if (run.state !== 'modeled') return '';
  return run.elapsed_ms === null ? `Modeled: ${MODELED}` : `Modeled in ${duration(run.elapsed_ms)}: ${MODELED}`;
}

const range = (pair) => `${int(pair[0])}–${int(pair[1])}`;

// The line above every modeled view (r.label: the server in words, plans/hardware-settings.js's choiceText).
export function modeledLabel(r) {
  const model = r.steps.model;
  return `${r.label}. Weights ${sig(model.weight_bytes / 1e9, 3)} GB; KV cache ${bytes(model.kv_bytes_per_token)} a token.`;
}

export function checksSummary(r) {
  const held = r.checks.held_out;
  return `The model was checked against published measurements (docs/gpu.md): on the ${int(held.count)} figures its two efficiency factors were not fitted on, its error is ${sig(held.median_abs_error_pct, 2)}% at the median and ${sig(held.max_abs_error_pct, 3)}% at worst (docs/gpu.md names the known gaps).`;
}

export function queueWords(r) {
  const { workload, policies, results } = r.queue;
  const cont = findPolicy(policies, POLICY_ROLES.continuous);
  const stat = findPolicy(policies, POLICY_ROLES.staticBatches);
  const cache = results[findPolicy(policies, POLICY_ROLES.oneAtATimeWithCache)];
  const nocache = results[findPolicy(policies, POLICY_ROLES.noCache)];
  const arrival =
    workload.arrival && workload.arrival.kind === 'poisson'
      ? `arriving at ${sig(workload.arrival.rate_per_s, 3)} a second`
      : 'all at once';
  return [
    `The lab’s own queue, on this GPU’s modeled step times: ${int(workload.count)} requests ${arrival}, prompts of ${range(workload.prompt)} tokens, answers of ${range(workload.answer)}. ` +
      `One at a time with the cache, it is done in ${duration(cache.makespan_ms)}; ${policyLabel(stat).toLowerCase()} take ${duration(results[stat].makespan_ms)}, ` +
      `${policyLabel(cont).toLowerCase()} ${duration(results[cont].makespan_ms)}: ${ratio(results[cont].tokens_per_s / cache.tokens_per_s)} the tokens per second of one at a time.`,
    cacheWords(nocache, cache),
  ];
}

function cacheWords(nocache, cache) {
  const slower = nocache.makespan_ms / cache.makespan_ms;
  const why =
    slower < 1.5
      ? 'at these short lengths a modeled step costs about the same whether it recomputes the prompt or not, because reading the weights once dominates it'
      : 'recomputing the prompt at every token costs more than reading the cache';
  return `Without the cache one at a time takes ${duration(nocache.makespan_ms)}, ${ratio(slower)} as long as with it: ${why}.`;
}

export function gainWords(r) {
  const rows = r.gain.rows;
  const one = rows[0];
  const last = rows[rows.length - 1];
  return `One decode step reads every weight once whatever its rows, so on this GPU ${int(last.rows)} rows take ${ratio(last.step_ms / one.step_ms)} the time of 1 row and give ${ratio(last.gain)} the tokens per second (modeled, at context ${int(r.gain.context)}); the step turns compute-bound from about ${int(r.steps.model.crossover_rows)} rows.`;
}

export function budgetWords(r) {
  const model = r.steps.model;
  const free = model.device_memory_bytes * model.tp * (1 - model.memory_reserve_fraction) - model.weight_bytes;
  const blockTokens = r.memory.simulate_options.block_tokens;
  return `The KV budget is this GPU’s own, in real tokens (no scaling step): ${int(model.tp)} × ${sig(model.device_memory_bytes / 1e9, 3)} GB less ${int(model.memory_reserve_fraction * 100)}% reserved, less ${sig(model.weight_bytes / 1e9, 3)} GB of weights, leaves ${sig(free / 1e9, 3)} GB = ${int(model.kv_budget_tokens)} tokens at ${int(model.kv_bytes_per_token)} bytes each, ${int(Math.floor(model.kv_budget_tokens / blockTokens))} blocks of ${int(blockTokens)} tokens.`;
}

export function memoryWords(r, load) {
  const m = r.memory;
  const w = m.workload;
  const reserve = m.results[findPolicy(m.policies, POLICY_ROLES.reserve)];
  const paged = m.results[findPolicy(m.policies, POLICY_ROLES.paged)];
  const slots = policySlots(m.policies[0]);
  const more = paged.requests_at_once.peak > reserve.requests_at_once.peak;
  return [
    `A server-sized queue: ${int(w.count)} requests, prompts of ${range(w.prompt)} tokens, answers of ${range(w.answer)}, arriving at random at ${sig(m.rate, 3)} a second (${ratio(load)} what continuous batching with unlimited memory gets through, so that a queue forms), on ${count(slots, 'slot')}.`,
    `Reserve takes room for the prompt and the longest answer at admission: it ran at most ${int(reserve.requests_at_once.peak)} requests at once (${sig(reserve.requests_at_once.mean, 3)} on average), with ${sig(reserve.waste_pct, 3)}% of what it held never written. ` +
      `Paged takes a block only when a token needs one: in the same memory it ran ${more ? 'up to ' : ''}${int(paged.requests_at_once.peak)} at once (${sig(paged.requests_at_once.mean, 3)} on average)${paged.preemptions ? `, preempting ${count(paged.preemptions, 'time')}` : ', never preempting'}; ` +
      `p95 time to first token ${duration(paged.p95_ttft_ms)} against reserve’s ${duration(reserve.p95_ttft_ms)}, the whole queue done in ${duration(paged.makespan_ms)} against ${duration(reserve.makespan_ms)}.`,
    ...(more
      ? []
      : [
          `Here paged fits no more than reserve: even reserve’s largest hold, ${int(reserve.peak_kv_blocks)} of ${int(reserve.kv_blocks_budget)} blocks, stayed within this server’s memory, so ${reserve.requests_at_once.peak >= slots ? `the ${int(slots)} slots, not the memory, set how many ran at once` : 'memory never held either back'}. Fewer GPUs or a larger model make the memory bind.`,
        ]),
  ];
}
