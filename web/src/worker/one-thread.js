// The rows gain with one thread beside all of them: when the lab ran on more than one thread, the decode
// steps of its rows at the rows chapter's context are timed once more on one thread, as
// steps.one_thread_decode (measure's decode grid: {rows, contexts: [context], ms}), so that chapter 3
// shows what the threads add to each row count.

import { stepsByRows } from '../shared/steps.js';
import { DECODE_ONLY } from './remeasure.js';

// m: the module; options: the lab's options (measure on this worker's clock, with its threads); result:
// the lab's result on the CPU. Returns the result, with steps.one_thread_decode when it ran on threads
// (not when its check found them no faster than one and it ran on one: steps.model.thread_check).
export function withOneThreadDecode(m, options, result, progress) {
  if (!(result.steps.model.threads > 1)) return result;
  const { context } = stepsByRows(result.steps);
  const oneThread = m.measure(
    {
      ...(options.source && { source: options.source }),
      ...options.measure,
      ...DECODE_ONLY,
      decode_rows: result.steps.decode.rows,
      decode_contexts: [context],
      threads: 1,
    },
    () => progress(0.995, 'timing the decode steps again on one thread')
  ).steps.decode;
  return { ...result, steps: { ...result.steps, one_thread_decode: oneThread } };
}
