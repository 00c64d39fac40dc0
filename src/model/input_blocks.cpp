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
      block.q[i] = static_cast<int8_t>(std::nearbyint(x[i] * inverse));
      block.sum += block.q[i];
    }
  }
}

}  // namespace kvlab
