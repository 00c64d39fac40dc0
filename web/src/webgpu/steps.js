// The GPU's step table, in the shape the simulator takes (docs/contract.md): a decode step of r rows,
// each in its own KV slot at context c, over the CPU's contexts and rows up to the model's slots
// (rows-limit.js: the adapter's limits or the grid's ceiling); the prefill of t tokens (one pass of t
// rows in one slot); and the mixed step of chunked prefill (a chunk beside decode rows). The cache is not
// filled first: attention reads c positions whatever they hold, so the time is the same.

import { decodeRowsGrid } from './rows-limit.js';
import { stepTraffic } from './traffic.js';

// The CPU's grids (src/measure/measure_options.h), so that the two tables line up.
export const GPU_DECODE_CONTEXTS = [8, 16, 32, 64, 128];
export const GPU_PREFILL_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128];
// The mixed step (chunked prefill's): a prompt chunk of k tokens from position 0 in its own slot beside
// r decode rows at context c, one step, as the CPU's grid times it.
export const GPU_MIXED = { chunk_tokens: [8, 32], rows: [1, 8], contexts: [64] };

const rowsOf = (n, fill) => Array.from({ length: n }, fill);

// The decode contexts of a model whose sequences hold maxSeq positions.
export const decodeContexts = (maxSeq) => GPU_DECODE_CONTEXTS.filter((c) => c <= maxSeq);

// The mixed grid this model and its slots take: the chunk and the rows fit a step, the rows and the
// chunk's sequence fit the slots, the contexts fit a sequence; null when a part of it is empty.
function mixedGrid(model) {
  const grid = {
    chunk_tokens: GPU_MIXED.chunk_tokens.filter((k) => k <= model.shape.maxSeq),
    rows: GPU_MIXED.rows.filter((r) => r + 1 <= model.slots),
    contexts: GPU_MIXED.contexts.filter((c) => c <= model.shape.maxSeq),
  };
  const largest = (list) => list[list.length - 1];
  if (!grid.chunk_tokens.length || !grid.rows.length || !grid.contexts.length) return null;
  return largest(grid.chunk_tokens) + largest(grid.rows) <= model.capacity ? grid : null;
}

// A mixed step's rows: r decode rows in slots 0..r-1 at context c, then the chunk in slot r.
const mixedRows = (vocab, chunk, r, c) => ({
  tokens: [...rowsOf(r, () => 1), ...rowsOf(chunk, (_, i) => (i * 7 + 3) % vocab)],
  positions: [...rowsOf(r, () => c - 1), ...rowsOf(chunk, (_, i) => i)],
  slots: [...rowsOf(r, (_, i) => i), ...rowsOf(chunk, () => r)],
});

// model: createGpuModel(); timer: gpuTimer(); -> {decode, prefill, mixed (or null), timing}
export async function measureSteps(model, timer, { minSampleMs, samples }, progress = () => {}) {
  const maxSeq = model.shape.maxSeq;
  const rows = decodeRowsGrid(Math.min(model.slots, model.capacity));
  const contexts = decodeContexts(maxSeq);
  const tokens = GPU_PREFILL_TOKENS.filter((t) => t <= Math.min(maxSeq, model.capacity));
  const mixed = mixedGrid(model);
  const mixedCells = mixed ? mixed.chunk_tokens.length * mixed.rows.length * mixed.contexts.length : 0;
  const cells = rows.length * contexts.length + tokens.length + mixedCells;
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

  // ms[k][i][j] for chunk_tokens[k], rows[i], contexts[j] (docs/contract.md).
  const mixedMs = [];
  const mixedRepeats = [];
  for (const chunk of mixed ? mixed.chunk_tokens : []) {
    const msChunk = [];
    const repeatsChunk = [];
    for (const r of mixed.rows) {
      const msRow = [];
      const repeatsRow = [];
      for (const c of mixed.contexts) {
        progress(done / cells, `mixed steps of a ${chunk}-token chunk and ${r} rows at context ${c} on the GPU`);
        const n = model.setRows(mixedRows(model.shape.vocab, chunk, r, c));
        const timed = await timer.time(record(n), sampling);
        msRow.push(timed.ms);
        repeatsRow.push(timed.repeats);
        done += 1;
      }
      msChunk.push(msRow);
      repeatsChunk.push(repeatsRow);
    }
    mixedMs.push(msChunk);
    mixedRepeats.push(repeatsChunk);
  }
  progress(1, 'done');
  return {
    decode: { rows, contexts, ms: decodeMs },
    prefill: { tokens, ms: prefillMs },
    mixed: mixed && { ...mixed, ms: mixedMs },
    timing: {
      clock: timer.clock,
      min_sample_ms: minSampleMs,
      samples,
      statistic: 'median of samples, each a compute pass of repeated steps',
      decode_repeats: decodeRepeats,
      prefill_repeats: prefillRepeats,
      ...(mixed && { mixed_repeats: mixedRepeats }),
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
