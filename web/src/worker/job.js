// The job role: one Memory-section run, one replay or one modeled GPU server (the hardware switch), in a
// worker started for it and ended after it.

import { describe, loadSimd, measureOnClock, post, postRunError, throttledProgress } from './modules.js';
import { runMemoryPlan } from '../plans/memory.js';
import { runHardwarePlan } from '../plans/hardware.js';
import { openReplayDevice, replayOnGpuRefusal } from '../webgpu/replay-device.js';

// options: replay()'s, and backend: 'cpu' (the default) or 'webgpu', where its passes run.
// -> {policies: replay()'s result, device: {backend, gpu?, self_check?, traffic?, reason?}}: where it was
// served (on the GPU: its passes, their rows and the time the replay waited for them), or why on the CPU
// when the GPU was asked for.
async function runReplay(m, { backend = 'cpu', ...options }, progress) {
  const measure = measureOnClock(options.measure);
  const onCpu = (device) => ({ policies: m.replay({ ...options, measure }, progress), device });
  if (backend !== 'webgpu') return onCpu({ backend: 'cpu' });
  const refusal = replayOnGpuRefusal(options.policies);
  if (refusal) return onCpu({ backend: 'cpu', reason: refusal });

  progress(0, 'opening this device’s GPU (WebGPU) and checking its logits against the CPU’s');
  const opened = await openReplayDevice(m.exportWeights({ preset: measure && measure.preset }));
  try {
    const { reason, gpu, self_check: selfCheck } = opened;
    if (!opened.device)
      return onCpu({ backend: 'cpu', reason, ...(gpu && { gpu }), ...(selfCheck && { self_check: selfCheck }) });
    // The GPU holds float32 weights and KV: the CPU's model is the same one.
    const policies = m.replay(
      { ...options, measure: { ...measure, weights: 'f32', kv: 'f32' } },
      progress,
      opened.device
    );
    return { policies, device: { backend: 'webgpu', gpu, self_check: selfCheck, traffic: opened.traffic } };
  } finally {
    opened.close();
  }
}

const JOBS = {
  memory: runMemoryPlan,
  replay: runReplay,
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
      async (m) => {
        const start = performance.now();
        const progress = throttledProgress(id);
        try {
          const result = await JOBS[type](m, options, progress);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) })
    );
  };
}
