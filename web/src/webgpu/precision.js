// Which weights the GPU's matrix products read: 16-bit (f16) where the adapter offers shader-f16 and the
// matrices fit a half's range, else float32; with the reason, for the result and the page.

import { fitsHalf } from './half.js';

export const SHADER_F16 = 'shader-f16';

// features: the adapter's (describeAdapter().features, or any iterable of names); largestWeight: the
// largest |weight| of the matrices (half.js largestMatrixWeight). -> {weights: 'f16' | 'f32', reason}
export function gpuWeightFormat(features, largestWeight) {
  if (!new Set(features).has(SHADER_F16))
    return { weights: 'f32', reason: `this adapter does not offer ${SHADER_F16}` };
  if (!fitsHalf(largestWeight))
    return { weights: 'f32', reason: `a weight of ${largestWeight} is beyond a half’s largest value, 65504` };
  return { weights: 'f16', reason: `this adapter offers ${SHADER_F16}` };
}
