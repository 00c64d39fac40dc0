// Chapter 3's words.

import { bytes, count, duration, int, rate, ratio, spread } from '../../shared/format.js';
import { busyRowsText, fasterWithMoreRows, remeasuredText } from '../../shared/contradictions.js';
import { noisyCellsText, noisyDecodeCell, noisyText, twoTimingsSpread } from '../../shared/noisy.js';
import { gpuStepsWords, softwareWords } from '../../webgpu/words.js';

export const TITLE = 'One step, many rows';

export const WAITING = 'When the lab runs, this chapter draws the decode steps your device measures, for 1 to 16 rows.';

// The noisy cells among the points drawn (steps.model.timing.noisy_cells at byRows.context).
export function noisyPoints(byRows, steps) {
  return byRows.points.map((p) => noisyDecodeCell(steps, p.rows, byRows.context)).filter(Boolean);
}

// The rows gain the chapter states (tokens/s at the most rows over one row's), or null when the figures
// cannot carry it: a step faster with more rows than with fewer, or a noisy step among them.
export function statedGain(byRows, steps) {
  if (fasterWithMoreRows(byRows).length || noisyPoints(byRows, steps).length) return null;
  const first = byRows.points[0];
  return byRows.points[byRows.points.length - 1].tokens_per_s / first.tokens_per_s;
}

// steps: the run's step table (steps.model, steps.remeasured: the cells the lab timed a second time,
// worker/remeasure.js; steps.model.timing.noisy_cells).
export function explanation(byRows, steps) {
  const { model, remeasured } = steps;
  const first = byRows.points[0];
  const lastPoint = byRows.points[byRows.points.length - 1];
  const stepText = (p) => {
    const cell = noisyDecodeCell(steps, p.rows, byRows.context);
    return `${duration(p.step_ms)} a step${cell ? ` (noisy: ${noisyText(cell.spread)})` : ''}`;
  };
  const gain = statedGain(byRows, steps);
  const compared =
    gain === null
      ? ''
      : ` (${ratio(lastPoint.step_ms / first.step_ms)} longer), ${rate(lastPoint.tokens_per_s)} (${ratio(gain)} as many)`;
  const text = [
    `A server rarely answers one person at a time. One decode step can carry several rows, one per conversation, each at its own place in its answer. Here is the step your device measured at context ${int(byRows.context)}, for ${byRows.points.map((p) => int(p.rows)).join(', ')} rows.`,
    `${count(first.rows, 'row')}: ${stepText(first)}, ${rate(first.tokens_per_s)}. ${count(lastPoint.rows, 'row')}: ${stepText(lastPoint)}${compared || `, ${rate(lastPoint.tokens_per_s)}`}.`,
  ];
  const busy = fasterWithMoreRows(byRows);
  const replaced = remeasured && remeasured.length && remeasured[0].replaced;
  if (busy.length) text.push(busyRowsText(busy, remeasured));
  else if (gain === null) text.push(noisyCellsText(steps));
  else {
    if (replaced) text.push(remeasuredText(remeasured));
    if (model && Number.isFinite(model.weight_bytes))
      text.push(
        `Why the extra rows ride along: a step reads every weight of the model once (${bytes(model.weight_bytes)}) whatever the number of rows, and with one row it does only two operations per weight it reads, so it waits on memory. More rows reuse each weight while it is at hand: with ${int(lastPoint.rows)} rows each token’s share of that reading is ${bytes(model.weight_bytes / lastPoint.rows)}.`
      );
  }
  if (model && model.backend === 'webgpu') text.push(gpuStepsWords(model));
  return text;
}

// The two series of the rows gain chart's legend: the CPU's and the GPU's (model: the GPU's steps.model).
export function gainLabels(model) {
  const software = model.software_adapter ? ` — ${softwareWords({ architecture: model.adapter })}` : '';
  return { cpu: 'this device’s CPU', gpu: `this device’s GPU (WebGPU: ${model.adapter})${software}` };
}

const gainAt = (byRows, rows) => {
  const point = byRows.points.find((p) => p.rows === rows);
  return point.tokens_per_s / byRows.points[0].tokens_per_s;
};

// The most rows both series measured (0 when none): where the two gains are compared.
export function mostSharedRows(cpu, gpu) {
  const gpuRows = new Set(gpu.points.map((p) => p.rows));
  return Math.max(0, ...cpu.points.filter((p) => gpuRows.has(p.rows)).map((p) => p.rows));
}

// The two rows gains compared with the measured figures: at the most rows both measured, and at the
// GPU's most rows when it measured more. cpu, gpu: stepsByRows() of each; model: the GPU's steps.model.
export function gainWords(cpu, gpu, model) {
  const rows = mostSharedRows(cpu, gpu);
  const cpuGain = gainAt(cpu, rows);
  const gpuGain = gainAt(gpu, rows);
  const most = gpu.points[gpu.points.length - 1];
  const further = most.rows > rows ? `, and ${ratio(gainAt(gpu, most.rows))} with ${int(most.rows)} rows` : '';
  const compared =
    gpuGain > 1.1 * cpuGain
      ? 'the GPU gains more from extra rows than the CPU'
      : gpuGain < cpuGain / 1.1
        ? 'the GPU gains less from extra rows than the CPU'
        : 'the two gain about as much from extra rows';
  return `The rows gain on both, on one chart (tokens per second at each row count over those of one row, context ${int(gpu.context)}, ${model.weights === 'f16' ? 'float32 weights on the CPU, 16-bit matrices on the GPU' : 'float32 weights on both'}): with ${int(rows)} rows this device’s CPU gives ${ratio(cpuGain)} the tokens per second of one row, its GPU ${ratio(gpuGain)}${further}; ${compared}.`;
}

// The rows gain on one thread and on all of them, with the measured figures. one, all: stepsByRows() of
// steps.one_thread_decode and of steps.decode; threads: the lab's thread count. A series with a step
// faster with more rows than with fewer was timed on a busy device: its times are given, and no gain or
// comparison is read off them.
export function threadsWords(one, all, threads) {
  const rows = mostSharedRows(one, all);
  const stepAt = (byRows, r) => byRows.points.find((p) => p.rows === r).step_ms;
  const speedUp = (r) => stepAt(one, r) / stepAt(all, r);
  const asFast = (r) => (speedUp(r) >= 1 ? `${ratio(speedUp(r))} as fast` : `${ratio(1 / speedUp(r))} slower`);
  const head = `The same steps timed on one thread and on all ${int(threads)} (context ${int(all.context)})`;
  const busy = [
    ...fasterWithMoreRows(one).map((f) => ({ ...f, on: 'one thread' })),
    ...fasterWithMoreRows(all).map((f) => ({ ...f, on: `${int(threads)} threads` })),
  ];
  if (busy.length) {
    const cases = busy.map(
      (f) =>
        `on ${f.on} ${count(f.rows, 'row')} took ${duration(f.step_ms)} a step against ${duration(f.fewer_ms)} for ${count(f.fewer_rows, 'row')} (${spread(twoTimingsSpread(f.step_ms, f.fewer_ms))} apart)`
    );
    return `${head}: ${cases.join('; ')}, though a step with more rows does more work. The device was busy while these steps were timed, so no rows gain and no thread comparison is read off them: run again when the device is idle.`;
  }
  const oneGain = gainAt(one, rows);
  const allGain = gainAt(all, rows);
  const steps = `the 1-row step takes ${duration(stepAt(one, 1))} on one thread and ${duration(stepAt(all, 1))} on ${int(threads)} (${asFast(1)}), the ${int(rows)}-row step ${duration(stepAt(one, rows))} and ${duration(stepAt(all, rows))} (${asFast(rows)})`;
  // Handing a step's work to the threads and waiting for them has a fixed cost (about 10 µs a fork in
  // Chromium, docs/results.md): on short steps, or on a busy device, it outweighs the work shared, and
  // then a larger gain only says that one row got slower.
  const compared =
    speedUp(1) < 1 / 1.1
      ? `the one-row step came out slower on ${int(threads)} threads (handing its work to them and waiting for them, or other work on this device’s cores, cost more than splitting it saved), so the larger gain on threads only says that one row got slower`
      : allGain > 1.1 * oneGain
        ? 'the extra rows gain more with the threads'
        : allGain < oneGain / 1.1
          ? `the extra rows gain less with the threads: ${int(threads)} threads share the one row’s step already, so its weights come in faster and the rows have less waiting to fill`
          : 'the rows gain about as much either way';
  return `${head}: ${steps}. The rows gain with ${int(rows)} rows is ${ratio(oneGain)} on one thread and ${ratio(allGain)} on ${int(threads)}; ${compared}.`;
}

export function announcement(byRows) {
  const first = byRows.points[0];
  const lastPoint = byRows.points[byRows.points.length - 1];
  return `${rate(first.tokens_per_s)} with ${count(first.rows, 'row')}, ${rate(lastPoint.tokens_per_s)} with ${count(lastPoint.rows, 'row')}.`;
}
