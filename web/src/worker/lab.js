// The lab role: loads the SIMD module at start, then runs the whole lab per message, posting Part A and
// the step table as each is measured.

import { CATALOG } from '../generated/catalog.js';
import { CLOCK, describe, loadSimd, measureOnClock, post, postRunError, throttledProgress } from './modules.js';
import { runGpuLab } from '../webgpu/lab.js';

// options.backend = 'webgpu': the lab on this device's GPU where it can run (webgpu/lab.js), else on the
// CPU with the reason in result.webgpu.
async function runLab(m, { backend, ...options }, progress, onPart) {
  if (backend !== 'webgpu') return m.run(options, progress, onPart);
  const gpu = await runGpuLab(m, options, progress, onPart);
  if (gpu.result) return gpu.result;
  return { ...m.run(options, progress, onPart), webgpu: gpu.fallback };
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
    const { id, options } = message;
    modulePromise.then(
      async (m) => {
        const start = performance.now();
        try {
          const onPart = (name, value) => post({ type: 'part', id, name, value });
          const result = await runLab(
            m,
            { ...options, measure: measureOnClock(options.measure) },
            throttledProgress(id),
            onPart
          );
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) })
    );
  };
}
