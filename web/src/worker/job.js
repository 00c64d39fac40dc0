// The job role: one Memory-section run or one replay, in a worker started for it and ended after it.

import { loadSimd, measureOnClock, post, postRunError, throttledProgress } from './modules.js';
import { runMemoryPlan } from '../panels/memory/plan.js';

export function startJob() {
  let modulePromise = null;
  self.onmessage = (event) => {
    const message = event.data || {};
    const { id, type, options } = message;
    if (type !== 'memory' && type !== 'replay') return;
    if (!modulePromise) modulePromise = loadSimd();
    modulePromise.then(
      (m) => {
        const start = performance.now();
        const progress = throttledProgress(id);
        try {
          const result = type === 'memory'
            ? runMemoryPlan(m, options, progress)
            : m.replay({ ...options, measure: measureOnClock(options.measure) }, progress);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) }),
    );
  };
}

