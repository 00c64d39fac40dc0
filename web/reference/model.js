// kvlab's decode step in plain JavaScript: Float32Array loops, no SIMD, no wasm, written the way the
// published single-threaded JavaScript lab was. It runs the same model as the C++ code
// (src/model/model.cpp, kernels_scalar.cpp, attention_impl.h, generate.cpp) over the same weights,
// which it takes from the wasm module's exportWeights(): every matrix row-major [out, in].
//
// Loads with require() in Node (module.exports) and as a plain script in a browser or Worker
// (globalThis.kvlabReference); a bundler picks up the CommonJS export.
(function () {
  'use strict';

  // out[o] = dot(row o of w, x), w row-major [nOut, nIn].
  function matvec(out, w, x, nOut, nIn) {
    for (let o = 0; o < nOut; o++) {
      const row = o * nIn;
      let sum = 0;
      for (let i = 0; i < nIn; i++) sum += w[row + i] * x[i];
      out[o] = sum;
    }
  }

  function rmsnorm(out, x, weight, n) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += x[i] * x[i];
    const scale = 1 / Math.sqrt(ss / n + 1e-5);
    for (let i = 0; i < n; i++) out[i] = x[i] * scale * weight[i];
  }

  // "Rotate half": within each head, element i pairs with element i + headDim/2.
  function rope(vec, nHeads, headDim, cos, sin, rowOffset) {
    const half = headDim / 2;
    for (let h = 0; h < nHeads; h++) {
      const base = h * headDim;
      for (let i = 0; i < half; i++) {
        const a = vec[base + i],
          b = vec[base + i + half];
        const c = cos[rowOffset + i],
          s = sin[rowOffset + i];
        vec[base + i] = a * c - b * s;
        vec[base + i + half] = a * s + b * c;
      }
    }
  }

  function argmax(x) {
    let best = 0;
    for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
    return best;
  }

  function createModel(weights) {
    const c = weights.config;
    const d = c.d_model,
      nLayers = c.n_layers,
      nHeads = c.n_heads,
      nKvHeads = c.n_kv_heads;
    const headDim = c.head_dim !== undefined ? c.head_dim : d / nHeads;
    const kvDim = nKvHeads * headDim,
      dFf = c.d_ff,
      vocab = c.vocab,
      maxSeq = c.max_seq;
    const half = headDim / 2;
    const group = nHeads / nKvHeads;
    const invSqrt = 1 / Math.sqrt(headDim);

    // Scratch buffers, allocated once.
    const x = new Float32Array(d),
      xb = new Float32Array(d),
      q = new Float32Array(d);
    const k = new Float32Array(kvDim),
      v = new Float32Array(kvDim);
    const attn = new Float32Array(d),
      proj = new Float32Array(d);
    const gate = new Float32Array(dFf),
      up = new Float32Array(dFf);
    const scores = new Float32Array(maxSeq);

    function newCache() {
      const keys = [],
        values = [];
      for (let l = 0; l < nLayers; l++) {
        keys.push(new Float32Array(maxSeq * kvDim));
        values.push(new Float32Array(maxSeq * kvDim));
      }
      return { keys, values };
    }

    // One token at one position, attending over positions 0..position; returns fresh logits.
    function step(cache, token, position) {
      if (!(token >= 0 && token < vocab)) throw new RangeError(`token must be 0..${vocab - 1} (got ${token})`);
      if (!(position >= 0 && position < maxSeq))
        throw new RangeError(`position must be 0..${maxSeq - 1} (got ${position})`);
      x.set(weights.token_embedding.subarray(token * d, (token + 1) * d));
      const ropeRow = position * half;

      for (let l = 0; l < nLayers; l++) {
        const layer = weights.layers[l];

        // Attention block.
        rmsnorm(xb, x, layer.attn_norm, d);
        matvec(q, layer.wq, xb, d, d);
        matvec(k, layer.wk, xb, kvDim, d);
        matvec(v, layer.wv, xb, kvDim, d);
        rope(q, nHeads, headDim, weights.rope_cos, weights.rope_sin, ropeRow);
        rope(k, nKvHeads, headDim, weights.rope_cos, weights.rope_sin, ropeRow);
        const keys = cache.keys[l],
          values = cache.values[l];
        keys.set(k, position * kvDim);
        values.set(v, position * kvDim);

        const context = position + 1;
        for (let h = 0; h < nHeads; h++) {
          const qBase = h * headDim;
          const kvOffset = Math.floor(h / group) * headDim;
          let maxScore = -Infinity;
          for (let t = 0; t < context; t++) {
            const kBase = t * kvDim + kvOffset;
            let s = 0;
            for (let i = 0; i < headDim; i++) s += q[qBase + i] * keys[kBase + i];
            scores[t] = s * invSqrt;
            if (scores[t] > maxScore) maxScore = scores[t];
          }
          let sum = 0;
          for (let t = 0; t < context; t++) {
            scores[t] = Math.exp(scores[t] - maxScore);
            sum += scores[t];
          }
          for (let t = 0; t < context; t++) scores[t] /= sum;
          for (let i = 0; i < headDim; i++) attn[qBase + i] = 0;
          for (let t = 0; t < context; t++) {
            const p = scores[t],
              vBase = t * kvDim + kvOffset;
            for (let i = 0; i < headDim; i++) attn[qBase + i] += p * values[vBase + i];
          }
        }
        matvec(proj, layer.wo, attn, d, d);
        for (let i = 0; i < d; i++) x[i] += proj[i];

        // Feed-forward block (SwiGLU).
        rmsnorm(xb, x, layer.ffn_norm, d);
        matvec(gate, layer.w_gate, xb, dFf, d);
        matvec(up, layer.w_up, xb, dFf, d);
        for (let i = 0; i < dFf; i++) gate[i] = (gate[i] / (1 + Math.exp(-gate[i]))) * up[i];
        matvec(proj, layer.w_down, gate, d, dFf);
        for (let i = 0; i < d; i++) x[i] += proj[i];
      }

      rmsnorm(xb, x, weights.final_norm, d);
      const logits = new Float32Array(vocab);
      matvec(logits, weights.w_out, xb, vocab, d);
      return logits;
    }

    // Feed the prompt token by token into one cache, then nAnswer greedy tokens.
    function generate(promptTokens, nAnswer) {
      if (promptTokens.length < 1) throw new RangeError('the prompt needs at least one token');
      if (promptTokens.length + nAnswer - 1 > maxSeq) throw new RangeError(`prompt + answer exceed max_seq ${maxSeq}`);
      const cache = newCache();
      let logits = null;
      for (let p = 0; p < promptTokens.length; p++) logits = step(cache, promptTokens[p], p);
      const answer = [];
      let position = promptTokens.length;
      while (answer.length < nAnswer) {
        answer.push(argmax(logits));
        if (answer.length < nAnswer) logits = step(cache, answer[answer.length - 1], position++);
      }
      return answer;
    }

    return { config: c, newCache, step, generate };
  }

  // FLOPs of one decode step: 2 per multiply-add of every matrix (wq wk wv wo, gate up down per layer,
  // then w_out), plus attention's scores and weighted sum: 2 * 2 * n_heads * head_dim * context.
  function decodeStepFlops(config, context) {
    const d = config.d_model,
      headDim = config.head_dim !== undefined ? config.head_dim : d / config.n_heads;
    const kvDim = config.n_kv_heads * headDim;
    const perLayerMacs = 2 * d * d + 2 * kvDim * d + 3 * config.d_ff * d;
    const macs = config.n_layers * perLayerMacs + config.vocab * d;
    return 2 * macs + config.n_layers * 2 * 2 * config.n_heads * headDim * context;
  }

  function now() {
    return performance.now();
  }

  // Time the decode step at position context-1 (attending over `context` positions): fill a cache to
  // context-1, find a repeat count whose sample lasts at least minSampleMs, take `samples` samples.
  function timeDecodeStep(model, context, options) {
    const opts = options || {};
    const minSampleMs = opts.minSampleMs !== undefined ? opts.minSampleMs : 20;
    const nSamples = opts.samples !== undefined ? opts.samples : 5;
    const cfg = model.config;
    if (!(context >= 1 && context <= cfg.max_seq))
      throw new RangeError(`context must be 1..${cfg.max_seq} (got ${context})`);
    const cache = model.newCache();
    for (let p = 0; p < context - 1; p++) model.step(cache, (p * 7 + 3) % cfg.vocab, p);
    const token = 1 % cfg.vocab,
      position = context - 1;

    let repeats = 1;
    for (;;) {
      const start = now();
      for (let r = 0; r < repeats; r++) model.step(cache, token, position);
      const elapsed = now() - start;
      if (elapsed >= minSampleMs) break;
      repeats = elapsed > 0 ? Math.max(repeats + 1, Math.ceil((repeats * 1.2 * minSampleMs) / elapsed)) : repeats * 2;
    }
    const perStep = [];
    for (let s = 0; s < nSamples; s++) {
      const start = now();
      for (let r = 0; r < repeats; r++) model.step(cache, token, position);
      perStep.push((now() - start) / repeats);
    }
    const sorted = perStep.slice().sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    return { median_ms: median, min_ms: sorted[0], max_ms: sorted[sorted.length - 1], repeats, samples: nSamples };
  }

  const api = { createModel, decodeStepFlops, timeDecodeStep, argmax };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else globalThis.kvlabReference = api;
})();
