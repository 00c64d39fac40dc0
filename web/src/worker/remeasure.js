// A step table that contradicts the work its steps do was likely timed while the device was busy
// (shared/contradictions.js), and the lab times the steps behind it once more, on the CPU or on the GPU
// (a timings object: cpuTimings below, webgpu/steps.js gpuTimings):
// - decode cells faster with more rows than with fewer: those cells are timed again, and the second
//   figures kept when they agree with the rest of the grid (steps.remeasured);
// - a policy order the physics forbids (the cache slower than none), or a prompt pass slower than one of
//   more tokens: the decode and prefill grids the policies are priced on are timed again, each cell keeps
//   the faster of its two times, and that table is kept when the order it prices is allowed and its
//   prompt passes are in order (steps.remeasured_queue; its prefill and prefill_after, when a prompt pass
//   was out of order).
// A table that is kept has its queue priced again; one that is not leaves the first figures standing, and
// the chapters say the device was busy, with both timings.

import { brokenDecodeCells, forbiddenPolicyOrders, slowerWithFewerTokens } from '../shared/contradictions.js';

// The smallest Part A and prefill and mixed grids measure() takes: this call is for the decode cells.
export const DECODE_ONLY = {
  runs: 1,
  answer_tokens: 1,
  prefill_tokens: [1],
  mixed_chunk_tokens: [1],
  mixed_rows: [1],
  mixed_contexts: [1],
};

const ascending = (values) => [...new Set(values)].sort((a, b) => a - b);

// m: the module; options: the lab's options (measure already on this worker's clock).
export function cpuTimings(m, options) {
  const measure = (grids, phase, progress) =>
    m.measure({ ...(options.source && { source: options.source }), ...options.measure, ...DECODE_ONLY, ...grids }, () =>
      progress(0.99, phase)
    ).steps;
  return {
    decodeCells: async (rows, contexts, progress = () => {}) =>
      measure(
        { decode_rows: rows, decode_contexts: contexts },
        'timing the steps that contradicted the rest again',
        progress
      ).decode.ms,
    async decodeAndPrefill(rows, contexts, tokens, progress = () => {}) {
      const steps = measure(
        { decode_rows: rows, decode_contexts: contexts, prefill_tokens: tokens },
        'timing the decode and prefill steps again: the queue’s order or a prompt pass contradicted the arithmetic',
        progress
      );
      return { decode: steps.decode.ms, prefill: steps.prefill.ms };
    },
  };
}

// The faster of two timings, cell by cell, of grids of the same shape (nested arrays of ms).
const fasterOf = (first, second) =>
  first.map((value, i) => (Array.isArray(value) ? fasterOf(value, second[i]) : Math.min(value, second[i])));

async function remeasureBrokenCells(result, timings, reprice, progress) {
  const { decode } = result.steps;
  const broken = brokenDecodeCells(decode);
  if (!broken.length) return result;
  const rows = ascending(broken.map((c) => c.rows));
  const contexts = ascending(broken.map((c) => c.context));
  const again = await timings.decodeCells(rows, contexts, progress);
  const cells = broken.map((c) => ({
    rows: c.rows,
    context: c.context,
    before_ms: c.step_ms,
    after_ms: again[rows.indexOf(c.rows)][contexts.indexOf(c.context)],
  }));
  const ms = decode.ms.map((row) => [...row]);
  for (const c of cells) ms[decode.rows.indexOf(c.rows)][decode.contexts.indexOf(c.context)] = c.after_ms;
  const replaced = brokenDecodeCells({ ...decode, ms }).length === 0;
  const remeasured = cells.map((c) => ({ ...c, replaced }));
  if (!replaced) return { ...result, steps: { ...result.steps, remeasured } };
  const steps = { ...result.steps, decode: { ...decode, ms }, remeasured };
  return { ...result, steps, policies: reprice(steps, result) };
}

async function remeasureForbiddenOrders(result, timings, reprice, progress) {
  const orders = forbiddenPolicyOrders(result);
  const { decode, prefill } = result.steps;
  const prefillFound = slowerWithFewerTokens(prefill);
  if (!orders.length && !prefillFound.length) return result;
  const again = await timings.decodeAndPrefill(decode.rows, decode.contexts, prefill.tokens, progress);
  const steps = {
    ...result.steps,
    decode: { ...decode, ms: fasterOf(decode.ms, again.decode) },
    prefill: { ...prefill, ms: fasterOf(prefill.ms, again.prefill) },
  };
  const policies = reprice(steps, result);
  const ordersAfter = forbiddenPolicyOrders({ policies });
  const prefillAfter = slowerWithFewerTokens(steps.prefill);
  const remeasuredQueue = {
    orders,
    orders_after: ordersAfter,
    ...(prefillFound.length && { prefill: prefillFound, prefill_after: prefillAfter }),
    replaced: ordersAfter.length === 0 && prefillAfter.length === 0,
  };
  if (!remeasuredQueue.replaced) return { ...result, steps: { ...result.steps, remeasured_queue: remeasuredQueue } };
  return { ...result, steps: { ...steps, remeasured_queue: remeasuredQueue }, policies };
}

// result: the lab's result; timings: cpuTimings(m, options) or gpuTimings(); reprice(steps, result) ->
// policies (worker/simulate-queue.js on the lab's options). -> the result, with what was timed again.
export async function remeasureContradictions(result, timings, reprice, progress = () => {}) {
  const cellsSettled = await remeasureBrokenCells(result, timings, reprice, progress);
  return remeasureForbiddenOrders(cellsSettled, timings, reprice, progress);
}
