// The job role: one Memory-section run, one replay or one modeled GPU server (the hardware switch), in a
// worker started for it and ended after it.

import { describe, loadSimd, measureOnClock, post, postRunError, throttledProgress } from './modules.js';
import { runMemoryPlan } from '../panels/memory/plan.js';
import { runHardwarePlan } from '../hardware/plan.js';

const JOBS = {
  memory: runMemoryPlan,
  replay: (m, options, progress) => m.replay({ ...options, measure: measureOnClock(options.measure) }, progress),
  hardware: runHardwarePlan,
};

export function startJob() {
  let modulePromise = null;
  self.onmessage = (event) => {
    const message = event.data || {};
    const { id, type, options } = message;
    if (!Object.hasOwn(JOBS, type)) return;
    if (!modulePromise) modulePromise = loadSimd();
    modulePromise.then(
      (m) => {
        const start = performance.now();
        const progress = throttledProgress(id);
        try {
          const result = JOBS[type](m, options, progress);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) })
    );
  };
}
