// Reading the measured step table (result.steps, the simulator contract's format).

// The index of the context nearest 64 in the grid (the published lab quoted context 64).
export function referenceContext(contexts) {
  let best = 0;
  contexts.forEach((c, j) => {
    if (Math.abs(c - 64) < Math.abs(contexts[best] - 64)) best = j;
  });
  return best;
}

// The decode step of each row count at the reference context: [{ rows, step_ms, tokens_per_s }].
export function stepsByRows(steps) {
  const { rows, contexts, ms } = steps.decode;
  const j = referenceContext(contexts);
  return {
    context: contexts[j],
    points: rows.map((r, i) => ({ rows: r, step_ms: ms[i][j], tokens_per_s: (r * 1000) / ms[i][j] })),
  };
}
