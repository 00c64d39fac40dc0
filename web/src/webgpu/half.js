// IEEE half precision (f16) for the GPU's 16-bit weights: float32 values rounded to the nearest half
// (ties to even, as a GPU converts), their bits for upload, and the model's weights as the GPU holds them
// (every matrix rounded, the embedding and the norms float32), on which the self-check's reference runs.

const F16_MAX = 65504;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// One float32's nearest half, as its 16 bits.
export function halfBits(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // inf, NaN
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // beyond the largest half: infinity
  if (e <= 0) {
    // A subnormal half (or zero): the mantissa with its implicit 1, shifted, rounded to even.
    if (e < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - e;
    const kept = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (kept + (rest > halfway || (rest === halfway && kept & 1) ? 1 : 0));
  }
  const kept = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa steps the exponent, up to infinity: the bit layout makes that one add.
  return sign | (kept + (rest > 0x1000 || (rest === 0x1000 && kept & 1) ? 1 : 0));
}

// A half's 16 bits as the float32 it is exactly.
export function halfValue(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export const toHalfBits = (array) => Uint16Array.from(array, halfBits);
const roundedToHalf = (array) => Float32Array.from(array, (v) => halfValue(halfBits(v)));

// The largest |value| a half holds: weights beyond it would become infinities.
export const fitsHalf = (largestAbs) => largestAbs <= F16_MAX;

// The matrices of exportWeights(): the ones the matrix products read (the GPU keeps them 16-bit).
export const MATRICES = ['wq', 'wk', 'wv', 'wo', 'w_gate', 'w_up', 'w_down'];

// exportWeights() with every matrix (the layers' and the classifier w_out) rounded to f16.
export function weightsRoundedToHalf(weights) {
  return {
    ...weights,
    w_out: roundedToHalf(weights.w_out),
    layers: weights.layers.map((layer) => ({
      ...layer,
      ...Object.fromEntries(MATRICES.map((name) => [name, roundedToHalf(layer[name])])),
    })),
  };
}

// The largest |weight| among the matrices.
export function largestMatrixWeight(weights) {
  let largest = 0;
  const scan = (array) => {
    for (const v of array) largest = Math.max(largest, Math.abs(v));
  };
  scan(weights.w_out);
  for (const layer of weights.layers) for (const name of MATRICES) scan(layer[name]);
  return largest;
}
