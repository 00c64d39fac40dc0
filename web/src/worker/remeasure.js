// A step table whose decode grid contradicts the work its steps do (more rows faster than fewer,
// shared/contradictions.js) was likely timed while the device was busy: the lab times those cells once
// more, and keeps the second figures when they agree with the rest of the grid (then the queue is
// priced again on them). What was timed again is recorded in steps.remeasured.

import { brokenDecodeCells } from '../shared/contradictions.js';
import { simulateLabQueue } from './simulate-queue.js';

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

// m: the module; options: the lab's options (measure already on this worker's clock); result: the lab's
// result on the CPU. Returns the result, with steps.remeasured = [{rows, context, before_ms, after_ms,
// replaced}] when some cells were timed again.
export function remeasureBrokenCells(m, options, result, progress) {
  const { decode } = result.steps;
  const broken = brokenDecodeCells(decode);
  if (!broken.length) return result;
  const rows = ascending(broken.map((c) => c.rows));
  const contexts = ascending(broken.map((c) => c.context));
  const again = m.measure(
    {
      ...(options.source && { source: options.source }),
      ...options.measure,
      ...DECODE_ONLY,
      decode_rows: rows,
      decode_contexts: contexts,
    },
    () => progress(0.99, 'timing the steps that contradicted the rest again')
  ).steps.decode;
  const cells = broken.map((c) => ({
    rows: c.rows,
    context: c.context,
    before_ms: c.step_ms,
    after_ms: again.ms[rows.indexOf(c.rows)][contexts.indexOf(c.context)],
  }));
  const ms = decode.ms.map((row) => [...row]);
  for (const c of cells) ms[decode.rows.indexOf(c.rows)][decode.contexts.indexOf(c.context)] = c.after_ms;
  const replaced = brokenDecodeCells({ ...decode, ms }).length === 0;
  const remeasured = cells.map((c) => ({ ...c, replaced }));
  if (!replaced) return { ...result, steps: { ...result.steps, remeasured } };
  const steps = { ...result.steps, decode: { ...decode, ms }, remeasured };
  return { ...result, steps, policies: simulateLabQueue(m, steps, options, result) };
}
