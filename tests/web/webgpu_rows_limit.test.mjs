// How many rows the GPU's decode grid takes (web/src/webgpu/rows-limit.js), from an adapter's limits and
// the model's KV cache, and the words saying what capped it: checked in Node on stand-in limits, one for
// each cap. No browser and no WebGPU needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GRID_ROWS_CEILING, decodeRowsGrid, decodeRowsLimit } from '../../web/src/webgpu/rows-limit.js';
import { rowsLimitWords } from '../../web/src/webgpu/words.js';

// The tiny preset's shape: kv_dim 16, so a sequence of 160 positions is 10,240 bytes of K in a layer.
const TINY = { vocab: 64, d_model: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, d_ff: 64, max_seq: 160 };
const SEQUENCE_BYTES = 160 * 16 * 4;
const limits = (maxBufferSize, maxStorageBufferBindingSize) => ({ maxBufferSize, maxStorageBufferBindingSize });

test('a large adapter: the grid stops at the modeled servers’ rows', () => {
  const limit = decodeRowsLimit(TINY, limits(2 ** 30, 2 ** 30));
  assert.equal(GRID_ROWS_CEILING, 256);
  assert.deepEqual(limit, {
    rows: 256,
    capped_by: 'grid_ceiling',
    kv_cache_rows: Math.floor(2 ** 30 / SEQUENCE_BYTES),
    activation_rows: 2 ** 30 / (2 * 64 * 4),
    grid_ceiling_rows: 256,
    largest_buffer_bytes: 2 ** 30,
  });
  assert.deepEqual(decodeRowsGrid(limit.rows), [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  assert.equal(
    rowsLimitWords(limit, 160),
    '256 rows, the most the modeled GPU servers’ tables reach; this adapter’s largest buffer (1 GiB) would hold the KV cache of 104,857 sequences of 160 positions'
  );
});

test('the KV cache: one layer’s K for every row in the smaller of the largest buffer and binding', () => {
  const limit = decodeRowsLimit(TINY, limits(100 * SEQUENCE_BYTES + 5, 2 ** 30));
  assert.equal(limit.capped_by, 'kv_cache');
  assert.equal(limit.rows, 100);
  assert.equal(limit.largest_buffer_bytes, 100 * SEQUENCE_BYTES + 5);
  assert.deepEqual(decodeRowsGrid(limit.rows), [1, 2, 4, 8, 16, 32, 64, 100]);
  assert.match(rowsLimitWords(limit, 160), /^100 rows: one layer’s KV cache for 100 rows of 160 positions each fills/);
});

test('the activations: the widest (here the logits) of every row', () => {
  const wide = { ...TINY, vocab: 1000000 };
  const limit = decodeRowsLimit(wide, limits(2 ** 27, 2 ** 27));
  assert.equal(limit.capped_by, 'activations');
  assert.equal(limit.rows, Math.floor(2 ** 27 / 4000000));
  assert.equal(limit.rows, 33);
  assert.deepEqual(decodeRowsGrid(limit.rows), [1, 2, 4, 8, 16, 32, 33]);
  assert.match(
    rowsLimitWords(limit, 160),
    /^33 rows: the widest activation .* of 33 rows fills this adapter’s largest buffer \(128 MiB\)$/
  );
});

test('an adapter too small for one row', () => {
  const limit = decodeRowsLimit(TINY, limits(SEQUENCE_BYTES - 1, 2 ** 30));
  assert.equal(limit.rows, 0);
  assert.deepEqual(decodeRowsGrid(limit.rows), []);
  assert.deepEqual(decodeRowsGrid(1), [1]);
});
