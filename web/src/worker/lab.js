// The lab role: loads the module at start (the threaded one where the page is cross-origin isolated, else
// the SIMD one), then runs the whole lab per message, posting Part A and the step table as each is
// measured.

import { CATALOG } from '../generated/catalog.js';
import {
  CLOCK,
  canRunThreads,
  describe,
  loadSimd,
  loadThreads,
  measureOnClock,
  post,
  postRunError,
  throttledProgress,
} from './modules.js';
import { threadWorkersFor, threadsToUse } from '../threads.js';
import { ensureModel } from './model-loader.js';
import { runGpuLab } from '../webgpu/lab.js';
import { cpuTimings, remeasureContradictions } from './remeasure.js';
import { simulateLabQueue } from './simulate-queue.js';
import { withOneThreadDecode } from './one-thread.js';

// options.backend = 'webgpu': the lab on this device's GPU where it can run (webgpu/lab.js), else on the
// CPU with the reason in result.webgpu. The GPU uploads a preset's weights (exportWeights), so a model
// read from files (source 'loaded') runs on the CPU: among them Qwen2 files, whose q/k/v biases and
// RMSNorm epsilon the shaders do not take. A step table that contradicts itself has the steps
// behind it timed again (remeasure.js); on threads, a CPU lab times its decode steps once more on one
// (one-thread.js).
async function runLab(m, { backend, ...options }, progress, onPart) {
  const onCpu = async () => {
    const reprice = (steps, result) => simulateLabQueue(m, steps, options, result);
    const first = m.run(options, progress, onPart);
    const settled = await remeasureContradictions(first, cpuTimings(m, options), reprice, progress);
    const result = withOneThreadDecode(m, options, settled, progress);
    // What was timed again reported its own progress after run()'s end.
    progress(1, 'done');
    return result;
  };
  if (backend !== 'webgpu') return onCpu();
  if (options.source === 'loaded') {
    const reason = 'The GPU runs the random-weight models only; a model read from files runs on the CPU.';
    return { ...(await onCpu()), webgpu: { available: false, reason } };
  }
  const gpu = await runGpuLab(m, options, progress, onPart);
  if (gpu.result) return gpu.result;
  return { ...(await onCpu()), webgpu: gpu.fallback };
}

// How long the threaded module may take to load (its pool of thread workers included) before the lab
// falls back to the SIMD one: well within the page's own limit for the worker to be ready.
const THREADED_LOAD_LIMIT_MS = 10000;

// The threaded module where it can run; the SIMD one otherwise, or if the threaded one fails to load or
// does not load in time (its error kept for the environment panel).
async function loadLabModule() {
  if (!canRunThreads()) return { m: await loadSimd(), threadedModuleError: null };
  try {
    const late = new Promise((resolve, reject) => {
      setTimeout(
        () => reject(new Error(`it did not load within ${THREADED_LOAD_LIMIT_MS / 1000} s`)),
        THREADED_LOAD_LIMIT_MS
      );
    });
    return { m: await Promise.race([loadThreads(), late]), threadedModuleError: null };
  } catch (error) {
    return { m: await loadSimd(), threadedModuleError: describe(error).message };
  }
}

export function startLab() {
  const loaded = loadLabModule();
  const modulePromise = loaded.then(({ m }) => m);
  // The module's thread limit (1 in the single-threaded one), for the runs.
  let maxThreads = 1;
  loaded.then(
    ({ m, threadedModuleError }) => {
      // The threaded module started workers for the threads this device's cores allow (modules.js).
      const limit = m.catalog().limits.threads.max;
      maxThreads = limit > 1 ? threadWorkersFor(navigator.hardwareConcurrency, limit) + 1 : 1;
      const presets = {};
      for (const { name } of CATALOG.model_presets) presets[name] = m.modelInfo({ preset: name });
      const first = presets[CATALOG.model_presets[0].name];
      post({
        type: 'ready',
        version: m.version(),
        presets,
        roofline_presets: m.rooflinePresets(),
        instruction_set: first.instruction_set || '',
        threads: {
          max: maxThreads,
          offered: navigator.hardwareConcurrency || 1,
          cross_origin_isolated: self.crossOriginIsolated === true,
          threaded_module_error: threadedModuleError,
        },
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
    const { id, options: given, model } = message;
    modulePromise.then(
      async (m) => {
        const start = performance.now();
        try {
          const progress = throttledProgress(id);
          const onPart = (name, value) => post({ type: 'part', id, name, value });
          // The model's facts before its measurements: the page shows its weights as held (models/words.js).
          if (model) onPart('model', await ensureModel(m, model, progress));
          // options.threads: 'auto' (what the device offers) or a count; run on as many as the module allows.
          const { threads, ...options } = given;
          const threadCount = threadsToUse(threads, { offered: navigator.hardwareConcurrency, max: maxThreads });
          const measure = measureOnClock(options.measure, { threads: threadCount });
          const result = await runLab(m, { ...options, measure }, progress, onPart);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          postRunError(id, error);
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) })
    );
  };
}
