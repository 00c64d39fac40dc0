#include "model/input_blocks.h"

#include <cmath>
#include <cstddef>

namespace kvlab {

void quantize_inputs(InputBlock* blocks, const float* x, int n_rows, int n_in) {
  const size_t n_blocks = static_cast<size_t>(n_rows) * (n_in / kInputBlockWidth);
  for (size_t b = 0; b < n_blocks; ++b, x += kInputBlockWidth) {
    float largest = 0.0f;
    for (int i = 0; i < kInputBlockWidth; ++i) largest = std::fmax(largest, std::fabs(x[i]));
    InputBlock& block = blocks[b];
    block.scale = largest / 127.0f;
    const float inverse = largest > 0.0f ? 127.0f / largest : 0.0f;
    block.sum = 0;
    for (int i = 0; i < kInputBlockWidth; ++i) {
      // At most 127 and a rounding error; a NaN or an infinity (a broken file's weights) counts as 0,
      // where converting it would be undefined.
      const float scaled = x[i] * inverse;
      block.q[i] = static_cast<int8_t>(std::fabs(scaled) <= 127.25f ? std::nearbyint(scaled) : 0.0f);
      block.sum += block.q[i];
    }
  }
}

}  // namespace kvlab
