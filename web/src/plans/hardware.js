// What the hardware switch computes for a GPU preset, in a job worker with the wasm module `m` (no DOM):
// the modeled step table (m.roofline), the lab's queue under its four policies on it, the rows gain, the
// memory policies at the table's real KV budget in tokens (the Memory section's plan, unchanged), how many
// requests each ran at once, and the published figures the model was checked against (m.rooflineChecks).

import { median } from '../shared/median.js';
import { runMemoryPlan } from './memory.js';
import { rooflineOrAdvice } from './fits.js';
import { GAIN_CONTEXT, GAIN_ROWS, MEMORY_SETTINGS, SERVER_QUEUE } from './hardware-settings.js';

// The most requests in a seat at once, and the time-weighted mean, from a queue_timeline's stints.
export function requestsAtOnce(timeline) {
  const { start_ms: starts, end_ms: ends } = timeline.stints;
  const events = [];
  for (let i = 0; i < starts.length; i += 1) events.push([starts[i], 1], [ends[i], -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  let area = 0;
  for (let i = 0; i < events.length; i += 1) {
    if (i > 0) area += now * (events[i][0] - events[i - 1][0]);
    now += events[i][1];
    peak = Math.max(peak, now);
  }
  const span = events.length ? events[events.length - 1][0] - events[0][0] : 0;
  return { peak, mean: span > 0 ? area / span : peak };
}

function rowsGain(steps) {
  const column = steps.decode.contexts.indexOf(GAIN_CONTEXT);
  const rows = GAIN_ROWS.map((count) => {
    const stepMs = steps.decode.ms[steps.decode.rows.indexOf(count)][column];
    return { rows: count, step_ms: stepMs, tokens_per_s: (count * 1000) / stepMs };
  });
  for (const row of rows) row.gain = row.tokens_per_s / rows[0].tokens_per_s;
  return { context: GAIN_CONTEXT, rows };
}

// This GPU's figures, and the error on every figure the factors were not fitted on.
function checksFor(checks, gpu) {
  const heldOut = checks.figures.filter((f) => !f.fit).map((f) => Math.abs(f.error_pct));
  return {
    efficiencies: checks.efficiencies,
    figures: checks.figures.filter((f) => f.gpu === gpu),
    held_out: { count: heldOut.length, median_abs_error_pct: median(heldOut), max_abs_error_pct: Math.max(...heldOut) },
  };
}

function queueRun(m, steps, options) {
  const results = m.simulate(steps, options.workload, options.policies, { timeline_requests: 0 });
  for (const name of Object.keys(results)) {
    delete results[name].requests;
    delete results[name].timeline;
  }
  return { workload: options.workload, policies: options.policies, results };
}

// options: {roofline: {gpu, model, weights, kv, tp}, slots, workload (the lab's queue), policies (its four)}
export function runHardwarePlan(m, options, progress = () => {}) {
  progress(0, 'modeling the step table');
  const steps = rooflineOrAdvice(m, options.roofline);
  progress(0.05, 'replaying the lab’s queue under four policies');
  const queue = queueRun(m, steps, options);
  const memory = runMemoryPlan(
    m,
    {
      ...MEMORY_SETTINGS,
      steps,
      workload: SERVER_QUEUE,
      slots: options.slots,
      rate: 'auto',
      kv_tokens: steps.model.kv_budget_tokens,
    },
    (fraction, phase) => progress(0.1 + 0.85 * fraction, `memory: ${phase}`)
  );
  for (const name of memory.policies) {
    const r = memory.results[name];
    if (r.queue_timeline) r.requests_at_once = requestsAtOnce(r.queue_timeline);
  }
  const checks = checksFor(m.rooflineChecks(), options.roofline.gpu);
  progress(1, 'done');
  return { steps, queue, gain: rowsGain(steps), memory, checks };
}
