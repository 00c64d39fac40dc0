// The "SIMD vs scalar vs JavaScript" role: the same decode step in the SIMD module, the scalar build and
// plain JavaScript.

import reference from '../../reference/model.js';
import { describe, loadScalar, loadSimd, post, postRunError, withSampleFloor } from './modules.js';

const BENCH_PHASES = {
  'limits and decode steps':
    'timing the multiply-add peak, memory read bandwidth, matrix kernels and decode steps of 1 and 16 rows in turns',
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
  const minSample = withSampleFloor(options.min_sample_ms);
  const measure = { preset: options.preset, min_sample_ms: minSample, samples: options.samples };
  const benchOptions = { measure, answer_runs: 0, simulator: false };
  // Shares of the progress bar, roughly as the time goes (the scalar build's 16-row steps are slow).
  const plan = options.simd ? { simd: [0, 0.3], scalar: [0.3, 0.8], js: [0.8, 1] } : { scalar: [0, 0.7], js: [0.7, 1] };
  let stage = 'load';
  const progress = (range, fraction, phase, loading = false) => {
    post({ type: 'progress', id, fraction: range[0] + (range[1] - range[0]) * fraction, phase, loading });
  };
  const benchProgress = (range, label) => (fraction, phase) => {
    progress(
      [range[0] + 0.05 * (range[1] - range[0]), range[1]],
      fraction,
      `${label}: ${BENCH_PHASES[phase] || phase}`
    );
  };

  const result = {
    preset: options.preset,
    context,
    simd: null,
    simd_error: null,
    scalar: null,
    js: null,
    simd_at_context: null,
    scalar_at_context: null,
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
    progress(
      plan.js,
      0.1,
      `Plain JavaScript: timing the decode step (filling a cache of ${context - 1} positions first)`
    );
    const timing = reference.timeDecodeStep(model, context, { minSampleMs: minSample, samples: options.samples });
    const flops = reference.decodeStepFlops(weights.config, context);
    const weightBytes = result.scalar_at_context.rows1.bytes_read; // the same step, the same bytes
    result.js = {
      ...timing,
      gflops: flops / (timing.median_ms * 1e6),
      gb_per_s: Number.isFinite(weightBytes) ? weightBytes / (timing.median_ms * 1e6) : null,
      flops,
    };
    progress(plan.js, 1, 'done');
    post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
  } catch (error) {
    postRunError(id, error, stage);
  }
}

export function startCompare() {
  self.onmessage = (event) => {
    const message = event.data || {};
    if (message.type === 'compare') compare(message.id, message.options || {});
  };
}
