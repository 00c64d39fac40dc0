// The rows a model projects to answer N tokens to a prompt of P tokens, one token at a time.
//   Without a cache, token k reruns the whole sequence so far: P + k − 1 rows; in all N·P + N(N−1)/2.
//   With a KV cache, the prompt is projected once (P rows) and every later token is one new row:
//   P + N − 1 in all.

// Per step k = 1..N: { k, nocache: rows projected, recomputed: of those, rows projected before, cache: rows }.
export function projectedRows(prompt, answer) {
  const steps = [];
  for (let k = 1; k <= answer; k += 1) {
    const nocache = prompt + k - 1;
    steps.push({ k, nocache, recomputed: k === 1 ? 0 : nocache - 1, cache: k === 1 ? prompt : 1 });
  }
  return {
    steps,
    nocache_total: answer * prompt + (answer * (answer - 1)) / 2,
    cache_total: prompt + answer - 1,
  };
}
