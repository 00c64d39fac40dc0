// The GPU's step table, in the shape the simulator takes (docs/contract.md): a decode step of r rows,
// each in its own KV slot at context c, over the CPU's contexts and rows up to the model's slots
// (rows-limit.js: the adapter's limits or the grid's ceiling); and the prefill of t tokens (one pass of t rows in one slot). The cache
// is not filled first: attention reads c positions whatever they hold, so the time is the same.

import { decodeRowsGrid } from './rows-limit.js';
import { stepTraffic } from './traffic.js';

// The CPU's grids (src/measure/measure_options.h), so that the two tables line up.
export const GPU_DECODE_CONTEXTS = [8, 16, 32, 64, 128];
export const GPU_PREFILL_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128];

const rowsOf = (n, fill) => Array.from({ length: n }, fill);

// The decode contexts of a model whose sequences hold maxSeq positions.
export const decodeContexts = (maxSeq) => GPU_DECODE_CONTEXTS.filter((c) => c <= maxSeq);

// model: createGpuModel(); timer: gpuTimer(); -> {decode, prefill, timing}
export async function measureSteps(model, timer, { minSampleMs, samples }, progress = () => {}) {
  const maxSeq = model.shape.maxSeq;
  const rows = decodeRowsGrid(Math.min(model.slots, model.capacity));
  const contexts = decodeContexts(maxSeq);
  const tokens = GPU_PREFILL_TOKENS.filter((t) => t <= Math.min(maxSeq, model.capacity));
  const cells = rows.length * contexts.length + tokens.length;
  let done = 0;
  const record = (n) => (encoder, repeats, timestampWrites) => model.encodeSteps(encoder, n, repeats, timestampWrites);
  const sampling = { minSampleMs, samples };

  const decodeMs = [];
  const decodeRepeats = [];
  for (const r of rows) {
    const msRow = [];
    const repeatsRow = [];
    for (const c of contexts) {
      progress(done / cells, `decode steps of ${r} rows at context ${c} on the GPU`);
      model.setRows({ tokens: rowsOf(r, () => 1), positions: rowsOf(r, () => c - 1), slots: rowsOf(r, (_, i) => i) });
      const t = await timer.time(record(r), sampling);
      msRow.push(t.ms);
      repeatsRow.push(t.repeats);
      done += 1;
    }
    decodeMs.push(msRow);
    decodeRepeats.push(repeatsRow);
  }

  const prefillMs = [];
  const prefillRepeats = [];
  for (const t of tokens) {
    progress(done / cells, `prefill of ${t} tokens on the GPU`);
    model.setRows({
      tokens: rowsOf(t, (_, i) => (i * 7 + 3) % model.shape.vocab),
      positions: rowsOf(t, (_, i) => i),
      slots: rowsOf(t, () => 0),
    });
    const timed = await timer.time(record(t), sampling);
    prefillMs.push(timed.ms);
    prefillRepeats.push(timed.repeats);
    done += 1;
  }
  progress(1, 'done');
  return {
    decode: { rows, contexts, ms: decodeMs },
    prefill: { tokens, ms: prefillMs },
    timing: {
      clock: timer.clock,
      min_sample_ms: minSampleMs,
      samples,
      statistic: 'median of samples, each a compute pass of repeated steps',
      decode_repeats: decodeRepeats,
      prefill_repeats: prefillRepeats,
    },
    traffic: {
      dispatches_per_step: model.dispatches_per_step,
      submits_per_step: 1,
      decode_bytes: rows.map((r) =>
        contexts.map((c) => stepTraffic(model.config, r, c, model.weight_format).total_bytes)
      ),
    },
  };
}
