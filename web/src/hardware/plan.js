// What the hardware view computes for a GPU preset, in a job worker with the wasm module `m` (no DOM): the
// modeled step table (m.roofline), the lab's queue under its four policies on it, the memory comparison
// at the table's real KV budget in tokens (memplan.js, unchanged), the rows gain, and the published
// figures the model was checked against for this GPU (m.rooflineChecks).

import { runMemoryPlan } from '../memplan.js';
import { GAIN_CONTEXT, GAIN_ROWS, MEMORY_SETTINGS, SERVER_QUEUE } from './presets.js';

// options: {roofline: {gpu, model, weights}, workload, policies, slots}
export function runHardwarePlan(m, options, progress = () => {}) {
  progress(0, 'modeling the step table');
  const steps = m.roofline(options.roofline);
  progress(0.05, 'replaying the queue under four policies');
  const queue = m.simulate(steps, options.workload, options.policies, { timeline_requests: 0 });
  for (const name of Object.keys(queue)) delete queue[name].requests;

  const column = steps.decode.contexts.indexOf(GAIN_CONTEXT);
  const gain = GAIN_ROWS.map((rows) => {
    const ms = steps.decode.ms[steps.decode.rows.indexOf(rows)][column];
    return { rows, step_ms: ms, tokens_per_s: (rows * 1000) / ms };
  });

  const memory = runMemoryPlan(m, {
    ...MEMORY_SETTINGS, steps, workload: SERVER_QUEUE, slots: options.slots, rate: 'auto',
    kv_tokens: steps.model.kv_budget_tokens,
  }, (fraction, phase) => progress(0.1 + 0.85 * fraction, `memory: ${phase}`));

  const checks = m.rooflineChecks();
  progress(1, 'done');
  return {
    steps,
    queue: { workload: options.workload, policies: options.policies, results: queue },
    gain: { context: GAIN_CONTEXT, rows: gain },
    memory,
    checks: { efficiencies: checks.efficiencies, figures: checks.figures.filter((f) => f.gpu === options.roofline.gpu) },
  };
}
