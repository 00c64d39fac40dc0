// What one step moves through GPU memory, by the kernels' design (model.js, shaders/): every weight
// once per tile of ROW_TILE rows (the matrix products read a weight row per tile), the KV cache each
// row attends over, the KV written, and the activations; and what crosses back to the CPU (the ids).

import { ROW_TILE } from './shaders/matmul.js';
import { shapeOf } from './model.js';

const F32 = 4;
const MATRIX_NUMBER_BYTES = { f32: 4, f16: 2 };

// rows at context `context` each, the matrices in weightFormat ('f32' or 'f16') -> bytes, by part.
export function stepTraffic(config, rows, context, weightFormat) {
  const s = shapeOf(config);
  const matrixBytes =
    (s.nLayers * ((s.d + 2 * s.kvDim) * s.d + s.d * s.d + 3 * s.dFf * s.d) + s.vocab * s.d) *
    MATRIX_NUMBER_BYTES[weightFormat];
  const normBytes = (2 * s.nLayers + 1) * s.d * F32;
  const tilesOfRows = Math.ceil(rows / ROW_TILE);
  const kvRead = rows * context * 2 * s.kvDim * F32 * s.nLayers;
  const kvWritten = rows * 2 * s.kvDim * F32 * s.nLayers;
  // Per row and layer: x, xb, q|k|v, attention out, gate|up, hidden, each written once and read about once.
  const perRowLayer = (3 * s.d + 2 * (s.d + 2 * s.kvDim) + 2 * s.d + 2 * 2 * s.dFf + 2 * s.dFf) * F32;
  const activations = rows * (s.nLayers * perRowLayer + 2 * s.d * F32 + 2 * s.vocab * F32);
  const weights = matrixBytes * tilesOfRows + normBytes * rows + rows * s.d * F32;
  return {
    weight_bytes: weights,
    kv_read_bytes: kvRead,
    kv_written_bytes: kvWritten,
    activation_bytes: activations,
    total_bytes: weights + kvRead + kvWritten + activations,
    readback_bytes: rows * 4,
  };
}
