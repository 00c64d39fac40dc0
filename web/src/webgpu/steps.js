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

// The rows of a decode step of r rows, each in its own slot at context c, and of a prefill of t tokens
// in slot 0.
const decodeRows = (r, c) => ({
  tokens: rowsOf(r, () => 1),
  positions: rowsOf(r, () => c - 1),
  slots: rowsOf(r, (_, i) => i),
});
const prefillRows = (vocab, t) => ({
  tokens: rowsOf(t, (_, i) => (i * 7 + 3) % vocab),
  positions: rowsOf(t, (_, i) => i),
  slots: rowsOf(t, () => 0),
});

// Times cells of this model's steps, `cells` of them in all, reporting progress as each starts.
// -> {cell(phase, rowsIn) -> {ms, repeats}, over(list, time) -> {ms: [...], repeats: [...]}}
function cellTimer(model, timer, { minSampleMs, samples }, cells, progress) {
  let done = 0;
  // One cell: the step of these rows, repeated until a sample is long enough.
  async function cell(phase, rowsIn) {
    progress(done / cells, phase);
    const n = model.setRows(rowsIn);
    const timed = await timer.time(
      (encoder, repeats, timestampWrites) => model.encodeSteps(encoder, n, repeats, timestampWrites),
      { minSampleMs, samples }
    );
    done += 1;
    return timed;
  }
  // Cells over a list, nested as the grids are.
  async function over(list, time) {
    const grid = { ms: [], repeats: [] };
    for (const value of list) {
      const timed = await time(value);
      grid.ms.push(timed.ms);
      grid.repeats.push(timed.repeats);
    }
    return grid;
  }
  return { cell, over };
}

const timeDecode = ({ cell, over }, rows, contexts, where) =>
  over(rows, (r) =>
    over(contexts, (c) => cell(`decode steps of ${r} rows at context ${c} ${where}`, decodeRows(r, c)))
  );
const timePrefill = ({ cell, over }, vocab, tokens, where) =>
  over(tokens, (t) => cell(`prefill of ${t} tokens ${where}`, prefillRows(vocab, t)));

// The GPU's side of the lab's second timings (worker/remeasure.js): decode cells, and the decode and
// prefill grids, on the model and timer the table was measured with. Each -> ms in the grids' shape.
export function gpuTimings(model, timer, sampling) {
  const where = 'on the GPU, a second time';
  return {
    async decodeCells(rows, contexts, progress = () => {}) {
      const cells = cellTimer(model, timer, sampling, rows.length * contexts.length, progress);
      return (await timeDecode(cells, rows, contexts, where)).ms;
    },
    async decodeAndPrefill(rows, contexts, tokens, progress = () => {}) {
      const cells = cellTimer(model, timer, sampling, rows.length * contexts.length + tokens.length, progress);
      const decode = (await timeDecode(cells, rows, contexts, where)).ms;
      return { decode, prefill: (await timePrefill(cells, model.shape.vocab, tokens, where)).ms };
    },
  };
}

// model: createGpuModel(); timer: gpuTimer(); -> {decode, prefill, mixed (or null), timing}
export async function measureSteps(model, timer, { minSampleMs, samples }, progress = () => {}) {
  const maxSeq = model.shape.maxSeq;
  const vocab = model.shape.vocab;
  const rows = decodeRowsGrid(Math.min(model.slots, model.capacity));
  const contexts = decodeContexts(maxSeq);
  const tokens = GPU_PREFILL_TOKENS.filter((t) => t <= Math.min(maxSeq, model.capacity));
  const mixed = mixedGrid(model);
  const mixedCells = mixed ? mixed.chunk_tokens.length * mixed.rows.length * mixed.contexts.length : 0;
  const cells = cellTimer(
    model,
    timer,
    { minSampleMs, samples },
    rows.length * contexts.length + tokens.length + mixedCells,
    progress
  );
  const { cell, over } = cells;

  const decode = await timeDecode(cells, rows, contexts, 'on the GPU');
  const prefill = await timePrefill(cells, vocab, tokens, 'on the GPU');
  // ms[k][i][j] for chunk_tokens[k], rows[i], contexts[j] (docs/contract.md).
  const mixedSteps =
    mixed &&
    (await over(mixed.chunk_tokens, (k) =>
      over(mixed.rows, (r) =>
        over(mixed.contexts, (c) =>
          cell(`mixed steps of a ${k}-token chunk and ${r} rows at context ${c} on the GPU`, mixedRows(vocab, k, r, c))
        )
      )
    ));
  progress(1, 'done');
  return {
    decode: { rows, contexts, ms: decode.ms },
    prefill: { tokens, ms: prefill.ms },
    mixed: mixed && { ...mixed, ms: mixedSteps.ms },
    timing: {
      clock: timer.clock,
      min_sample_ms: minSampleMs,
      samples,
      statistic: 'median of samples, each a compute pass of repeated steps',
      decode_repeats: decode.repeats,
      prefill_repeats: prefill.repeats,
      ...(mixed && { mixed_repeats: mixedSteps.repeats }),
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
