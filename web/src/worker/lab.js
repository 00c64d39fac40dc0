// The lab role: loads the SIMD module at start, then runs the whole lab per message, posting Part A and
// the step table as each is measured.

import { CATALOG } from '../generated/catalog.js';
import { CLOCK, describe, loadSimd, measureOnClock, post, postRunError, throttledProgress } from './modules.js';
import { ensureModel } from './model-loader.js';
import { runGpuLab } from '../webgpu/lab.js';
import { remeasureBrokenCells } from './remeasure.js';

// options.backend = 'webgpu': the lab on this device's GPU where it can run (webgpu/lab.js), else on the
// CPU with the reason in result.webgpu. The GPU uploads a preset's weights (exportWeights), so a model
// read from files (source 'loaded') runs on the CPU. A CPU step table that contradicts itself has its
// broken cells timed again (remeasure.js).
async function runLab(m, { backend, ...options }, progress, onPart) {
  const onCpu = () => remeasureBrokenCells(m, options, m.run(options, progress, onPart), progress);
  if (backend !== 'webgpu') return onCpu();
  if (options.source === 'loaded') {
    const reason = 'The GPU runs the random-weight models only; a model read from files runs on the CPU.';
    return { ...onCpu(), webgpu: { available: false, reason } };
  }
  const gpu = await runGpuLab(m, options, progress, onPart);
  if (gpu.result) return gpu.result;
  return { ...onCpu(), webgpu: gpu.fallback };
}

export function startLab() {
  const modulePromise = loadSimd();
  modulePromise.then(
    (m) => {
      const presets = {};
      for (const { name } of CATALOG.model_presets) presets[name] = m.modelInfo({ preset: name });
      const first = presets[CATALOG.model_presets[0].name];
      post({
        type: 'ready',
        version: m.version(),
        presets,
        roofline_presets: m.rooflinePresets(),
        instruction_set: first.instruction_set || '',
        ...CLOCK,
      });
    },
    (error) => post({ type: 'error', id: null, stage: 'load', fatal: true, ...describe(error) })
  );

  self.onmessage = (event) => {
    const message = event.data || {};
    if (message.type === 'heap') {
      modulePromise.then(
        (m) => post({ type: 'heap', id: message.id, heap: m.memory() }),
        () => {}
      );
      return;
    }
    if (message.type !== 'run') return;
    const { id, options, model } = message;
    modulePromise.then(
      async (m) => {
        const start = performance.now();
        try {
          const progress = throttledProgress(id);
          if (model) await ensureModel(m, model, progress);
          const onPart = (name, value) => post({ type: 'part', id, name, value });
          const result = await runLab(m, { ...options, measure: measureOnClock(options.measure) }, progress, onPart);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) })
    );
  };
}
