// Correct before fast: a few decode steps of two rows (each in its own KV slot) on the GPU against the
// plain-JS reference's logits on the same weights. The GPU is refused when any logit is further from the
// CPU's than the tolerance; where float rounding flips a near-tie the gap is reported, not hidden.

import reference from '../../reference/model.js';

export const SELF_CHECK_STEPS = 6;
// Relative to the largest |logit|: float32 sums in another order differ by ~1e-6 of it; a broken
// kernel by far more.
export const RELATIVE_TOLERANCE = 1e-3;

// The two largest values' indices of a row of logits.
function topTwo(logits) {
  let first = 0;
  let second = -1;
  for (let i = 1; i < logits.length; i += 1) {
    if (logits[i] > logits[first]) {
      second = first;
      first = i;
    } else if (second < 0 || logits[i] > logits[second]) second = i;
  }
  return [first, second];
}

// model: createGpuModel() with at least 2 slots; weights: exportWeights(). -> {passed, reason,
// max_abs_diff, tolerance, steps, rows, closest_top2_gap, flips: [{step, row, cpu_token, gpu_token, gap}]}
export async function selfCheck(model, weights) {
  const cpu = reference.createModel(weights);
  const vocab = weights.config.vocab;
  const sequences = [0, 1].map((row) =>
    Array.from({ length: SELF_CHECK_STEPS }, (_, p) => (p * 7 + 3 + row * 11) % vocab)
  );
  const caches = sequences.map(() => cpu.newCache());
  let maxAbsDiff = 0;
  let scale = 0;
  let closestGap = Infinity;
  const flips = [];
  for (let p = 0; p < SELF_CHECK_STEPS; p += 1) {
    const gpu = await model.step(
      { tokens: sequences.map((s) => s[p]), positions: [p, p], slots: [0, 1] },
      { logits: true }
    );
    sequences.forEach((sequence, row) => {
      const expected = cpu.step(caches[row], sequence[p], p);
      const got = gpu.logits.subarray(row * vocab, (row + 1) * vocab);
      for (let i = 0; i < vocab; i += 1) {
        maxAbsDiff = Math.max(maxAbsDiff, Number.isFinite(got[i]) ? Math.abs(got[i] - expected[i]) : Infinity);
        scale = Math.max(scale, Math.abs(expected[i]));
      }
      const [first, second] = topTwo(expected);
      const gap = expected[first] - expected[second];
      closestGap = Math.min(closestGap, gap);
      if (gpu.ids[row] !== first) flips.push({ step: p, row, cpu_token: first, gpu_token: gpu.ids[row], gap });
    });
  }
  const tolerance = RELATIVE_TOLERANCE * Math.max(1, scale);
  const passed = maxAbsDiff <= tolerance;
  return {
    passed,
    reason: passed
      ? ''
      : `The GPU’s logits differ from the CPU’s by up to ${maxAbsDiff.toPrecision(3)} (tolerance ${tolerance.toPrecision(3)}): this adapter computes the model wrongly, so the lab runs on the CPU.`,
    max_abs_diff: maxAbsDiff,
    tolerance,
    steps: SELF_CHECK_STEPS,
    rows: sequences.length,
    closest_top2_gap: closestGap,
    flips,
  };
}
