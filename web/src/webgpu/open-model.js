// The model on this device's GPU, opened and checked, for the lab (lab.js) and for the replay's device
// worker (device-worker.js): acquire the adapter, size the KV slots by its limits, upload the weights and
// compare a few steps with the CPU's logits. Where any of it is missing or wrong, the reason in words
// the page shows as they are.

import { acquireGpu } from './device.js';
import { createGpuModel, unsupportedReason } from './model.js';
import { largestMatrixWeight, weightsRoundedToHalf } from './half.js';
import { gpuWeightFormat } from './precision.js';
import { selfCheck } from './self-check.js';
import { rowsLimitWords } from './words.js';
import { decodeRowsLimit } from './rows-limit.js';

// weights: exportWeights(); halfWhereOffered: the matrices in f16 where the adapter offers shader-f16
// (the lab), else float32 (the replay, whose tokens must be the CPU's float32 model's).
// -> {model, acquired (acquireGpu's), held (the weights as the GPU holds them), format, rowsLimit,
//     self_check} or {refused: {available: false, reason, gpu?, self_check?}}.
export async function openCheckedModel(weights, { halfWhereOffered }) {
  const acquired = await acquireGpu();
  if (!acquired.available) return { refused: { available: false, reason: acquired.reason } };
  const { device, gpu } = acquired;
  const refuse = (reason, more = {}) => ({ refused: { available: false, reason, gpu, ...more } });
  const unsupported = unsupportedReason(weights.config, gpu.limits);
  if (unsupported) return refuse(`This model cannot run on the GPU: ${unsupported}.`);

  const rowsLimit = decodeRowsLimit(weights.config, gpu.limits);
  const slots = rowsLimit.rows;
  if (slots < 2)
    return refuse(`The GPU takes ${rowsLimitWords(rowsLimit, weights.config.max_seq)}; the lab needs two.`);
  // A buffer the device could not allocate or a kernel it refused is reported here, not thrown.
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const format = halfWhereOffered
    ? gpuWeightFormat(gpu.features, largestMatrixWeight(weights))
    : { weights: 'f32', reason: 'the replay serves the CPU’s float32 model' };
  // The self-check's reference runs on the values the GPU holds.
  const held = format.weights === 'f16' ? weightsRoundedToHalf(weights) : weights;
  const model = createGpuModel(device, held, {
    capacity: Math.max(slots, weights.config.max_seq),
    slots,
    weightFormat: format.weights,
  });
  let check = null;
  try {
    check = await selfCheck(model, held);
  } catch (error) {
    // The device lost or a read-back refused (DOMException); anything else is a bug and goes on.
    model.destroy();
    if (error instanceof DOMException) return refuse(`The GPU stopped during its check: ${error.message}`);
    throw error;
  }
  const failed = (await device.popErrorScope()) || (await device.popErrorScope());
  if (failed || !check.passed) {
    model.destroy();
    return failed
      ? refuse(`The GPU could not load or run the model: ${failed.message}`)
      : refuse(check.reason, { self_check: check });
  }
  return { model, acquired, held, format, rowsLimit, self_check: check };
}
