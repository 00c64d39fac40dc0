// The SIMD vs scalar vs JavaScript panel's figures and words: one row per implementation, the ratios,
// and what they say about this device.

import { duration, int, ratio, sig } from '../../shared/format.js';

const speedOver = (slow, fast) => (slow && fast ? slow.median_ms / fast.median_ms : null);

// The worker's result plus what the panel shows: one row per implementation and the ratios.
export function summarize(raw) {
  const simd = raw.simd_at_context ? raw.simd_at_context.rows1 : null;
  const scalar = raw.scalar_at_context ? raw.scalar_at_context.rows1 : null;
  const bench = raw.simd || raw.scalar;
  return {
    ...raw,
    model: bench ? bench.model : null,
    read_gb_per_s: bench ? bench.read_gb_per_s : null,
    read_gb_per_s_from: raw.simd ? 'simd' : 'scalar',
    rows: { simd, scalar, js: raw.js },
    rows16: {
      simd: raw.simd_at_context ? raw.simd_at_context.rows16 : null,
      scalar: raw.scalar_at_context ? raw.scalar_at_context.rows16 : null,
    },
    ratios: {
      simd_vs_scalar: speedOver(scalar, simd),
      simd_vs_js: speedOver(raw.js, simd),
      scalar_vs_js: speedOver(raw.js, scalar),
      rows16_vs_rows1_simd: raw.simd_at_context ? raw.simd_at_context.tokens_per_s_ratio : null,
      rows16_vs_rows1_scalar: raw.scalar_at_context ? raw.scalar_at_context.tokens_per_s_ratio : null,
      // The SIMD build against the limits it measured itself (at context 64, whatever the panel's).
      decode_fraction_of_bandwidth: raw.simd ? raw.simd.decode_fraction_of_bandwidth : null,
      rows16_fraction_of_peak: raw.simd ? raw.simd.rows16_fraction_of_peak : null,
    },
  };
}

export const mb = (bytes) => `${sig(bytes / 1e6, 3)} MB`;
export const gbs = (value) => `${sig(value, 3)} GB/s`;

// What the table shows, in a few sentences, following the figures (the share of the read bandwidth
// decides whether the step was bound by memory on this device).
export function finding(s) {
  const { rows, ratios, model } = s;
  const read = s.read_gb_per_s;
  const parts = [];
  if (model && Number.isFinite(read) && read > 0) {
    // What the step reads (bench's bytes_read: one row of the embedding table, not all of it).
    const step = rows.simd || rows.scalar;
    const bytes = step && Number.isFinite(step.bytes_read) ? step.bytes_read : model.weight_bytes;
    const floorMs = bytes / (read * 1e6);
    parts.push(
      `A one-row decode step reads every weight matrix once, one row of the embedding table and the context’s keys and values (${mb(bytes)}), for just two floating-point operations per weight, so its floor is memory bandwidth: reading that much at the ${gbs(read)} measured here takes ${duration(floorMs)}.`
    );
    if (rows.simd) {
      const share = rows.simd.gb_per_s / read;
      const gain = `SIMD’s gain at one row (${ratio(ratios.simd_vs_scalar)} over scalar code, ${ratio(ratios.simd_vs_js)} over JavaScript)`;
      if (share >= 1) {
        parts.push(
          `The SIMD step took ${duration(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)}, as fast as memory reads go here (part of the weights stay in the processor’s caches), so ${gain} is capped by how fast the weights stream in, not by its arithmetic.`
        );
      } else if (share >= 0.5) {
        parts.push(
          `The SIMD step took ${duration(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)} (${int(share * 100)}% of that bandwidth), so ${gain} is capped by how fast the weights stream from memory, not by its arithmetic.`
        );
      } else {
        parts.push(
          `The SIMD step took ${duration(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)}, only ${int(share * 100)}% of that bandwidth: here more than memory holds it back (attention over the context, small matrices, the calls between them), and ${gain} is what is left.`
        );
      }
    } else {
      parts.push(
        `The scalar build read its weights at ${gbs(rows.scalar.gb_per_s)}: its arithmetic, not memory, is the limit.`
      );
    }
    if (model.weight_bytes < 4 * 1024 * 1024) {
      parts.push(
        `This model’s weights (${mb(model.weight_bytes)}) fit in the processor’s caches, so the memory limit shows only with a larger model such as the default (small).`
      );
    }
  }
  if (Number.isFinite(ratios.scalar_vs_js) && ratios.scalar_vs_js < 1.3) {
    const how = ratios.scalar_vs_js < 0.8 ? 'slower than' : 'about as fast as';
    parts.push(
      `Without SIMD, WebAssembly is ${how} JavaScript here (${ratio(ratios.scalar_vs_js)}): the gain comes from the vector instructions, not from leaving JavaScript.`
    );
  }
  if (Number.isFinite(ratios.rows16_vs_rows1_simd)) {
    parts.push(
      `With 16 rows each weight read serves 16 rows: the SIMD build then makes ${ratio(ratios.rows16_vs_rows1_simd)} the tokens per second of one row${Number.isFinite(ratios.rows16_vs_rows1_scalar) ? `, the scalar build ${ratio(ratios.rows16_vs_rows1_scalar)}, since its arithmetic was the limit already` : ''}.`
    );
  }
  return parts.join(' ');
}
