// The Web Worker that owns the wasm module: every measurement and simulation runs here, so the page
// stays responsive. The page cancels a run by terminating this worker and starting a new one.
//
// The same code runs in two roles, told apart by the worker's name:
//
// The lab (any other name): loads the SIMD module at start.
//   Messages in:  {type: 'run', id, options}
//                 {type: 'heap', id}   (diagnostics: the wasm heap, for tests/web/hardening and scripts/soak)
//   Messages out: {type: 'ready', version, presets, instruction_set}
//                 {type: 'progress', id, fraction, phase}
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage: 'load' | 'run', name, message, fatal}
//                 {type: 'heap', id, heap: {heap_bytes, in_use_bytes}}   (the page ignores it)
//
// The "SIMD vs scalar vs JavaScript" panel (name 'kvlab-compare'): started only when the panel runs,
// loads nothing until asked; then times the same decode step in the SIMD module, in the scalar build
// (kvlab-scalar.js + kvlab-scalar.wasm, loaded here on demand) and in plain JavaScript
// (web/reference/model.js, bundled in) over the SIMD module's weights.
//   Messages in:  {type: 'compare', id, options: {preset, simd, context, min_sample_ms, samples}}
//   Messages out: {type: 'progress', id, fraction, phase, loading}
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage, name, message, fatal}
//
// A job (name 'kvlab-job'): one Memory-section run (m.simulate() calls on the lab's step table, see
// memplan.js) or one replay (m.replay(): measure, serve for real, simulate, compare); started for the
// job and ended after it (jobs.js).
//   Messages in:  {type: 'memory' | 'replay', id, options}
//   Messages out: {type: 'progress', id, fraction, phase}
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage: 'load' | 'run', name, message, fatal}
//
// Served: the glue kvlab.js sits next to this file and is loaded with importScripts; it finds
// kvlab.wasm next to itself. Standalone: the single-file glue (wasm inlined), the scalar glue and its
// wasm as base64 (kvlabScalarWasmBase64) are prepended to this code in one Blob, so `createKvlab` and
// `createKvlabScalar` already exist.
/* global createKvlab, createKvlabScalar, kvlabScalarWasmBase64 */

import reference from '../reference/model.js';
import { COMPARE_WORKER_NAME, JOB_WORKER_NAME } from './roles.js';
import { runMemoryPlan } from './memplan.js';

const PRESET_NAMES = ['small', 'lab', 'medium', 'tiny'];

function post(message) {
  self.postMessage(message);
}

function describe(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

const moduleArgs = () => ({
  // The glue prints aborts with console.warn; keep them, but the page reports the error itself.
  printErr: (text) => console.warn('kvlab:', text),
});

// The SIMD module (a promise); importScripts('kvlab.js') when served.
function loadSimd() {
  try {
    const args = moduleArgs();
    if (typeof createKvlab !== 'function') {
      importScripts('kvlab.js');
      args.locateFile = (path) => new URL(path, self.location.href).href;
    }
    return createKvlab(args);
  } catch (error) {
    return Promise.reject(error);
  }
}

// The scalar build (KVLAB_SIMD=OFF) of the same C++: served as kvlab-scalar.js + kvlab-scalar.wasm,
// fetched only now; in the standalone file its wasm is inlined as base64.
function loadScalar() {
  try {
    const args = moduleArgs();
    if (typeof kvlabScalarWasmBase64 === 'string') {
      const text = atob(kvlabScalarWasmBase64);
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
      args.wasmBinary = bytes;
    } else {
      if (typeof createKvlabScalar !== 'function') importScripts('kvlab-scalar.js');
      // The glue asks for the name it was built as (kvlab.wasm); the page ships it as kvlab-scalar.wasm.
      args.locateFile = (path) => new URL(path.replace(/^kvlab\.wasm$/, 'kvlab-scalar.wasm'), self.location.href).href;
    }
    return createKvlabScalar(args);
  } catch (error) {
    return Promise.reject(error);
  }
}

// ---- the lab ----------------------------------------------------------------------------------

function startLab() {
  const modulePromise = loadSimd();
  modulePromise.then(
    (m) => {
      const presets = {};
      for (const name of PRESET_NAMES) {
        try {
          presets[name] = m.modelInfo({ preset: name });
        } catch (error) {
          // A preset this build does not know: leave it out.
        }
      }
      const first = presets.small || Object.values(presets)[0] || {};
      post({ type: 'ready', version: m.version(), presets, instruction_set: first.instruction_set || '' });
    },
    (error) => post({ type: 'error', id: null, stage: 'load', fatal: true, ...describe(error) }),
  );

  self.onmessage = (event) => {
    const message = event.data || {};
    if (message.type === 'heap') {
      modulePromise.then((m) => post({ type: 'heap', id: message.id, heap: m.memory() }), () => {});
      return;
    }
    if (message.type !== 'run') return;
    const { id, options } = message;
    modulePromise.then(
      (m) => {
        const start = performance.now();
        let lastFraction = -1;
        let lastPhase = '';
        try {
          const result = m.run(options, (fraction, phase) => {
            // Progress comes often in the step grids; pass on changes only.
            if (phase === lastPhase && fraction - lastFraction < 0.005 && fraction < 1) return;
            lastFraction = fraction;
            lastPhase = phase;
            post({ type: 'progress', id, fraction, phase });
          });
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          // RangeError/TypeError: bad options, the module is fine. Anything else (a wasm trap, an abort)
          // may have left the module unusable: the page starts a fresh worker.
          const fatal = !(error instanceof RangeError || error instanceof TypeError);
          post({ type: 'error', id, stage: 'run', fatal, ...describe(error) });
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) }),
    );
  };
}

// ---- the SIMD vs scalar vs JavaScript panel ---------------------------------------------------

const BENCH_PHASES = {
  'arithmetic peak': 'measuring the multiply-add peak',
  'memory bandwidth': 'measuring memory read bandwidth',
  'matrix kernels': 'timing the matrix kernels',
  'decode steps': 'timing decode steps of 1 and 16 rows',
  done: 'done',
};

function atContext(bench, context) {
  let best = null;
  for (const entry of bench.decode || []) {
    if (!best || Math.abs(entry.context - context) < Math.abs(best.context - context)) best = entry;
  }
  return best;
}

async function compare(id, options) {
  const start = performance.now();
  const context = options.context || 64;
  const measure = { preset: options.preset, min_sample_ms: options.min_sample_ms, samples: options.samples };
  const benchOptions = { measure, answer_runs: 0, simulator: false };
  // Shares of the progress bar, roughly as the time goes (the scalar build's 16-row steps are slow).
  const plan = options.simd
    ? { simd: [0, 0.3], scalar: [0.3, 0.8], js: [0.8, 1] }
    : { scalar: [0, 0.7], js: [0.7, 1] };
  let stage = 'load';
  const progress = (range, fraction, phase, loading = false) => {
    post({ type: 'progress', id, fraction: range[0] + (range[1] - range[0]) * fraction, phase, loading });
  };
  const benchProgress = (range, label) => (fraction, phase) => {
    progress([range[0] + 0.05 * (range[1] - range[0]), range[1]], fraction, `${label}: ${BENCH_PHASES[phase] || phase}`);
  };

  const result = {
    preset: options.preset, context, simd: null, simd_error: null, scalar: null, js: null,
    simd_at_context: null, scalar_at_context: null,
  };
  try {
    let weightsFrom = null;
    if (options.simd) {
      progress(plan.simd, 0, 'WebAssembly SIMD: loading the module', true);
      let simd = null;
      try {
        simd = await loadSimd();
      } catch (error) {
        // A browser whose SIMD probe passed but which cannot compile the module: carry on without it.
        result.simd_error = describe(error);
      }
      if (simd) {
        stage = 'run';
        result.simd = simd.bench(benchOptions, benchProgress(plan.simd, 'WebAssembly SIMD'));
        result.simd_at_context = atContext(result.simd, context);
        weightsFrom = simd;
      }
    }

    stage = 'load';
    progress(plan.scalar, 0, 'WebAssembly scalar: loading the second module', true);
    const scalar = await loadScalar();
    stage = 'run';
    result.scalar = scalar.bench(benchOptions, benchProgress(plan.scalar, 'WebAssembly scalar'));
    result.scalar_at_context = atContext(result.scalar, context);
    weightsFrom = weightsFrom || scalar;

    progress(plan.js, 0, 'Plain JavaScript: copying the weights out of the module');
    const weights = weightsFrom.exportWeights({ preset: options.preset });
    const model = reference.createModel(weights);
    progress(plan.js, 0.1, `Plain JavaScript: timing the decode step (filling a cache of ${context - 1} positions first)`);
    const timing = reference.timeDecodeStep(model, context, { minSampleMs: options.min_sample_ms, samples: options.samples });
    const flops = reference.decodeStepFlops(weights.config, context);
    const weightBytes = weights.config.weight_bytes;
    result.js = {
      ...timing,
      gflops: flops / (timing.median_ms * 1e6),
      gb_per_s: Number.isFinite(weightBytes) ? weightBytes / (timing.median_ms * 1e6) : null,
      flops,
    };
    progress(plan.js, 1, 'done');
    post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
  } catch (error) {
    const fatal = !(error instanceof RangeError || error instanceof TypeError);
    post({ type: 'error', id, stage, fatal, ...describe(error) });
  }
}

function startCompare() {
  self.onmessage = (event) => {
    const message = event.data || {};
    if (message.type === 'compare') compare(message.id, message.options || {});
  };
}

// ---- a job: the Memory section's simulations, or a replay -----------------------------------------

function startJob() {
  let modulePromise = null;
  self.onmessage = (event) => {
    const message = event.data || {};
    const { id, type, options } = message;
    if (type !== 'memory' && type !== 'replay') return;
    if (!modulePromise) modulePromise = loadSimd();
    modulePromise.then(
      (m) => {
        const start = performance.now();
        let lastFraction = -1;
        let lastPhase = '';
        const progress = (fraction, phase) => {
          if (phase === lastPhase && fraction - lastFraction < 0.005 && fraction < 1) return;
          lastFraction = fraction;
          lastPhase = phase;
          post({ type: 'progress', id, fraction, phase });
        };
        try {
          const result = type === 'memory' ? runMemoryPlan(m, options, progress) : m.replay(options, progress);
          post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
        } catch (error) {
          const fatal = !(error instanceof RangeError || error instanceof TypeError);
          post({ type: 'error', id, stage: 'run', fatal, ...describe(error) });
        }
      },
      (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) }),
    );
  };
}

if (self.name === COMPARE_WORKER_NAME) startCompare();
else if (self.name === JOB_WORKER_NAME) startJob();
else startLab();
