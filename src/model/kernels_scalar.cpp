// The scalar twins: the reference every SIMD kernel is tested against, and the whole kernel set of a
// KVLAB_SIMD=OFF build.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "model/attention_impl.h"
#include "model/kernels.h"

namespace kvlab::kernels::scalar {

float dot(const float* a, const float* b, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// No interleave_scratch: the reference reads each row of x as it is, one weight at a time.
void matmul(float* out, const float* x, const PackedMatrix& w, int n_rows, float* /*interleave_scratch*/) {
  if (w.blocks) {
    InputBlockBuffer blocks(static_cast<size_t>(n_rows) * (w.n_in / kInputBlockWidth));
    quantize_inputs(blocks.data(), x, n_rows, w.n_in);
    matmul_blocks(out, blocks.data(), w, n_rows, 0, w.n_panels());
    return;
  }
  matmul_panels(out, x, w, n_rows, 0, w.n_panels());
}

const float* matmul_inputs(const float* x, int /*n_in*/, int /*n_rows*/, float* /*interleave_scratch*/) { return x; }

void matmul_panels(float* out, const float* inputs, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  const int end_output = std::min(end_panel * kPanelWidth, w.n_out);
  for (int r = 0; r < n_rows; ++r) {
    const float* x_row = inputs + static_cast<size_t>(r) * w.n_in;
    for (int o = first_panel * kPanelWidth; o < end_output; ++o) {
      float sum = 0.0f;
      for (int i = 0; i < w.n_in; ++i) sum += x_row[i] * w.at(o, i);  // at() widens bfloat16 one weight at a time
      out[static_cast<size_t>(r) * w.n_out + o] = sum;
    }
  }
}

void axpy(float* y, float a, const float* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

void add(float* y, const float* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += x[i];
}

struct ScalarOps {
  static float dot(const float* a, const float* b, int n) { return scalar::dot(a, b, n); }
  static void axpy(float* y, float a, const float* x, int n) { scalar::axpy(y, a, x, n); }
  static void softmax(float* x, int n) { scalar::softmax(x, n); }
  template <NumberFormat F>
  static float dot_pairs(const float* q, const uint32_t* k, int head_dim) {
    return scalar::dot_pairs<F>(q, k, head_dim);
  }
  template <NumberFormat F>
  static void axpy_pairs(float* y, float a, const uint32_t* v, int head_dim) {
    scalar::axpy_pairs<F>(y, a, v, head_dim);
  }
};

void rmsnorm(float* out, const float* x, const float* weight, int n, float epsilon) {
  float scale = 1.0f / std::sqrt(dot(x, x, n) / static_cast<float>(n) + epsilon);
  for (int i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void softmax(float* x, int n) {
  float max_value = x[0];
  for (int i = 1; i < n; ++i) max_value = x[i] > max_value ? x[i] : max_value;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max_value);
    sum += x[i];
  }
  for (int i = 0; i < n; ++i) x[i] /= sum;
}

void swiglu(float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void rope(float* vec, int n_heads, int head_dim, const float* cos, const float* sin) {
  for (int h = 0; h < n_heads; ++h) {
    float* v = vec + static_cast<size_t>(h) * head_dim;
    const int half = head_dim / 2;
    for (int i = 0; i < half; ++i) {
      float a = v[i], b = v[i + half];
      v[i] = a * cos[i] - b * sin[i];
      v[i + half] = a * sin[i] + b * cos[i];
    }
  }
}

void attention(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
               int head_dim, float* scores) {
  attention_over<ScalarOps>(out, q, kv, context, n_heads, n_kv_heads, head_dim, 0, n_heads, scores);
}

void attention_heads(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
                     int head_dim, int first_head, int end_head, float* scores) {
  attention_over<ScalarOps>(out, q, kv, context, n_heads, n_kv_heads, head_dim, first_head, end_head, scores);
}

}  // namespace kvlab::kernels::scalar

namespace kvlab::kernels {

int argmax(const float* x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

}  // namespace kvlab::kernels
