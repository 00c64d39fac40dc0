// The lab on this device's GPU (options.backend = 'webgpu'), in the lab worker beside the wasm module `m`:
// acquire the adapter, upload the model's weights (exportWeights), check a few steps against the CPU,
// then measure the answer and the step table on the GPU and price the queue's policies on that table
// with the module's simulator. Where any of it is missing or wrong, -> {fallback: {available: false,
// reason, gpu?, self_check?}} and the worker runs the lab on the CPU instead.

import { measureAnswer } from './answer.js';
import { kvBudget } from './model.js';
import { openCheckedModel } from './open-model.js';
import { decodeContexts, gpuTimings, measureSteps } from './steps.js';
import { referenceContext } from '../shared/steps.js';
import { gpuTimer } from './timer.js';
import { adapterName } from './words.js';
import { simulateLabQueue } from '../worker/simulate-queue.js';
import { remeasureContradictions } from '../worker/remeasure.js';

const DEFAULT_SAMPLES = 3;
const SHAPE_KEYS = ['vocab', 'd_model', 'n_layers', 'n_heads', 'n_kv_heads', 'head_dim', 'd_ff', 'max_seq'];

// The CPU's side, float32 like the GPU's weights: its answer (its prompt, its tokens, to compare the GPU's
// with) and its decode steps over its own rows at `context` (the rows chapter draws the two rows gains on
// one chart); the other grids as small as they go.
function cpuReference(m, measure, context) {
  const { answer, steps } = m.measure({
    ...measure,
    weights: 'f32',
    kv: 'f32',
    decode_contexts: [context],
    prefill_tokens: [1],
    mixed_chunk_tokens: [1],
    mixed_rows: [1],
    mixed_contexts: [1],
  });
  return { answer, decode: steps.decode };
}

// options: the lab's run options (runs/config.js toRunOptions) with measure.min_sample_ms on the worker's
// clock; progress(fraction, phase); onPart(name, value) as m.run's.
export async function runGpuLab(m, options, progress, onPart) {
  progress(0, 'opening this device’s GPU (WebGPU) and checking its logits against the CPU’s');
  const measure = options.measure || {};
  const weights = m.exportWeights({ preset: measure.preset });
  const opened = await openCheckedModel(weights, { halfWhereOffered: true });
  if (opened.refused) return { fallback: opened.refused };
  const { model, acquired, format, rowsLimit, self_check: check } = opened;
  const { device, gpu } = acquired;
  const refuse = (reason) => ({ fallback: { available: false, reason, gpu } });
  const budget = kvBudget(weights.config, gpu.limits);
  const timer = gpuTimer(device, acquired.timestamps);
  try {
    progress(0.05, 'the answer and the decode steps on the CPU (to compare)');
    const contexts = decodeContexts(weights.config.max_seq);
    const cpu = cpuReference(m, measure, contexts[referenceContext(contexts)]);
    const answer = await measureAnswer(model, weights, cpu.answer, measure.runs || 1, (f, phase) =>
      progress(0.08 + 0.12 * f, phase)
    );
    onPart('answer', answer);

    const sampling = { minSampleMs: measure.min_sample_ms, samples: measure.samples || DEFAULT_SAMPLES };
    const grid = await measureSteps(model, timer, sampling, (f, phase) => progress(0.2 + 0.75 * f, phase));
    const c = weights.config;
    const steps = {
      model: {
        preset: c.preset,
        backend: 'webgpu',
        ...Object.fromEntries(SHAPE_KEYS.map((key) => [key, c[key]])),
        weights: format.weights,
        weights_reason: format.reason,
        kv: 'f32',
        parameters: c.parameters,
        weight_bytes: model.weight_bytes,
        kv_bytes_per_token: budget.kv_bytes_per_token,
        kv_budget_tokens: budget.kv_budget_tokens,
        largest_buffer_bytes: budget.largest_buffer_bytes,
        decode_rows_limit: rowsLimit,
        adapter: adapterName(gpu),
        software_adapter: gpu.software,
        timing: grid.timing,
        traffic: grid.traffic,
      },
      decode: grid.decode,
      prefill: grid.prefill,
      ...(grid.mixed && { mixed: grid.mixed }),
      cpu_decode: cpu.decode,
    };
    onPart('steps', steps);

    progress(0.96, 'simulating the queue on the GPU’s step table');
    const reprice = (table, result) => simulateLabQueue(m, table, options, result);
    const first = { answer, steps, workload: options.workload, policies: reprice(steps) };
    // A table that contradicts itself has the steps behind it timed again, on the GPU.
    const settled = await remeasureContradictions(first, gpuTimings(model, timer, sampling), reprice, (f, phase) =>
      progress(0.97 + 0.02 * f, phase)
    );
    progress(1, 'done');
    return { result: { ...settled, webgpu: { available: true, reason: '', gpu, self_check: check } } };
  } catch (error) {
    // The device lost or a read-back refused (DOMException); bad options (RangeError, TypeError) go on.
    if (error instanceof DOMException) return refuse(`The GPU stopped during the run: ${error.message}`);
    throw error;
  } finally {
    timer.destroy();
    model.destroy();
  }
}
