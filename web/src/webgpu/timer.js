// Times steps already recorded the same way each time: with the GPU's own clock (timestamp-query,
// around one compute pass of `repeats` steps) where the adapter offers it, else the wall clock around a
// submit and its completion (onSubmittedWorkDone). Each sample lasts at least minSampleMs: the repeat
// count grows until it does, as the CPU's step timer does.

import { median } from '../shared/median.js';

export function gpuTimer(device, timestamps) {
  const clock = timestamps ? 'timestamp-query' : 'wall';
  let querySet = null;
  let resolved = null;
  let readable = null;
  if (timestamps) {
    querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
    resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    readable = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  // record(encoder, repeats, timestampWrites) records the steps; -> {ms (all repeats), wall_ms}
  async function once(record, repeats) {
    const encoder = device.createCommandEncoder();
    record(
      encoder,
      repeats,
      timestamps ? { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } : undefined
    );
    if (timestamps) {
      encoder.resolveQuerySet(querySet, 0, 2, resolved, 0);
      encoder.copyBufferToBuffer(resolved, 0, readable, 0, 16);
    }
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    const wallMs = performance.now() - start;
    if (!timestamps) return { ms: wallMs, wall_ms: wallMs };
    await readable.mapAsync(GPUMapMode.READ);
    const [begin, end] = new BigUint64Array(readable.getMappedRange().slice(0));
    readable.unmap();
    const gpuMs = Number(end - begin) / 1e6;
    // A clock that did not tick (quantised, or a driver that writes zeros) falls back to the wall clock.
    return { ms: gpuMs > 0 ? gpuMs : wallMs, wall_ms: wallMs };
  }

  // -> {ms: per step (median of samples), repeats, samples: [per-step ms]}
  async function time(record, { minSampleMs, samples }) {
    let repeats = 1;
    for (;;) {
      const { wall_ms: elapsed } = await once(record, repeats);
      if (elapsed >= minSampleMs || repeats >= 1 << 16) break;
      repeats = elapsed > 0 ? Math.max(repeats + 1, Math.ceil((repeats * 1.2 * minSampleMs) / elapsed)) : repeats * 2;
    }
    const perStep = [];
    for (let k = 0; k < samples; k += 1) perStep.push((await once(record, repeats)).ms / repeats);
    return { ms: median(perStep), repeats, samples: perStep };
  }

  return {
    clock,
    time,
    destroy() {
      if (querySet) querySet.destroy();
      if (resolved) resolved.destroy();
      if (readable) readable.destroy();
    },
  };
}
