// How many rows a decode step on this adapter may take, and what capped it. Every row has its own KV
// slot of max_seq positions, and one layer's K (or V) for every slot is one buffer bound whole, so the
// adapter's largest buffer and binding (min of maxBufferSize and maxStorageBufferBindingSize) bound the
// slots; every activation buffer holds all rows (the widest: the logits, or q|k|v, or gate|up), so it
// bounds the rows too; and the grid stops at the rows the modeled GPU servers' tables reach, so the
// measured GPU and the modeled ones line up.

import { CATALOG } from '../generated/catalog.js';
import { kvBudget, shapeOf } from './model.js';

const F32 = 4;
export const GRID_ROWS_CEILING = CATALOG.limits.modeled_batch_rows.max;

// config: the model's (exportWeights().config); limits: the adapter's (describeAdapter().limits).
// -> {rows, capped_by: 'kv_cache' | 'activations' | 'grid_ceiling', kv_cache_rows, activation_rows,
//     grid_ceiling_rows, largest_buffer_bytes}
export function decodeRowsLimit(config, limits) {
  const s = shapeOf(config);
  const budget = kvBudget(config, limits);
  const widestRowBytes = Math.max(s.vocab, s.d + 2 * s.kvDim, 2 * s.dFf) * F32;
  const caps = {
    kv_cache: budget.max_slots,
    activations: Math.floor(budget.largest_buffer_bytes / widestRowBytes),
    grid_ceiling: GRID_ROWS_CEILING,
  };
  const cappedBy = Object.keys(caps).reduce((tightest, by) => (caps[by] < caps[tightest] ? by : tightest));
  return {
    rows: caps[cappedBy],
    capped_by: cappedBy,
    kv_cache_rows: caps.kv_cache,
    activation_rows: caps.activations,
    grid_ceiling_rows: caps.grid_ceiling,
    largest_buffer_bytes: budget.largest_buffer_bytes,
  };
}

// The decode grid's rows up to maxRows: the powers of two below it, and maxRows itself.
export function decodeRowsGrid(maxRows) {
  const rows = [];
  for (let r = 1; r < maxRows; r *= 2) rows.push(r);
  if (maxRows >= 1) rows.push(maxRows);
  return rows;
}
