// The kernels the forward pass calls. With KVLAB_SIMD they are xsimd batch loops with scalar tails
// (AVX2+FMA natively; SSE4.1 lowered to wasm SIMD128 under Emscripten); without, the scalar twins.
#include <cmath>
#include <cstddef>

#include "model/attention_impl.h"
#include "model/kernels.h"

#if KVLAB_SIMD
#include <xsimd/xsimd.hpp>
#endif

namespace kvlab::kernels {

#if KVLAB_SIMD

namespace {

using Batch = xsimd::batch<float>;
constexpr int kLanes = static_cast<int>(Batch::size);

// R rows x O outputs of a matmul with R*O independent accumulators: every weight vector loaded is
// used R times and every input vector O times, and the independent FMA chains hide their latency.
template <int R, int O>
void matmul_block(float* out, int n_out, const float* x, const float* w, int n_in) {
  Batch acc[R][O];
  for (int r = 0; r < R; ++r)
    for (int o = 0; o < O; ++o) acc[r][o] = Batch(0.0f);
  int i = 0;
  for (; i + kLanes <= n_in; i += kLanes) {
    Batch wv[O];
    for (int o = 0; o < O; ++o) wv[o] = Batch::load_unaligned(w + static_cast<size_t>(o) * n_in + i);
    for (int r = 0; r < R; ++r) {
      Batch xv = Batch::load_unaligned(x + static_cast<size_t>(r) * n_in + i);
      for (int o = 0; o < O; ++o) acc[r][o] = xsimd::fma(xv, wv[o], acc[r][o]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int o = 0; o < O; ++o) {
      float sum = xsimd::hadd(acc[r][o]);
      for (int t = i; t < n_in; ++t) sum += x[static_cast<size_t>(r) * n_in + t] * w[static_cast<size_t>(o) * n_in + t];
      out[static_cast<size_t>(r) * n_out + o] = sum;
    }
  }
}

// All outputs for a block of R rows: O outputs at a time, then one at a time for the tail.
template <int R, int O>
void matmul_rows(float* out, const float* x, const float* w, int n_in, int n_out) {
  int o = 0;
  for (; o + O <= n_out; o += O) matmul_block<R, O>(out + o, n_out, x, w + static_cast<size_t>(o) * n_in, n_in);
  for (; o < n_out; ++o) matmul_block<R, 1>(out + o, n_out, x, w + static_cast<size_t>(o) * n_in, n_in);
}

struct SimdOps {
  static float dot(const float* a, const float* b, int n) { return kernels::dot(a, b, n); }
  static void axpy(float* y, float a, const float* x, int n) { kernels::axpy(y, a, x, n); }
  static void softmax(float* x, int n) { kernels::softmax(x, n); }
};

}  // namespace

void matmul(float* out, const float* x, const float* w, int n_rows, int n_in, int n_out) {
  int r = 0;
  for (; r + 4 <= n_rows; r += 4)
    matmul_rows<4, 2>(out + static_cast<size_t>(r) * n_out, x + static_cast<size_t>(r) * n_in, w, n_in, n_out);
  for (; r < n_rows; ++r)
    matmul_rows<1, 4>(out + static_cast<size_t>(r) * n_out, x + static_cast<size_t>(r) * n_in, w, n_in, n_out);
}

float dot(const float* a, const float* b, int n) {
  Batch acc(0.0f);
  int i = 0;
  for (; i + kLanes <= n; i += kLanes) acc = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy(float* y, float a, const float* x, int n) {
  const Batch av(a);
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    xsimd::fma(av, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

void add(float* y, const float* x, int n) {
  int i = 0;
  for (; i + kLanes <= n; i += kLanes) (Batch::load_unaligned(y + i) + Batch::load_unaligned(x + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += x[i];
}

void rmsnorm(float* out, const float* x, const float* weight, int n) {
  const float scale = 1.0f / std::sqrt(dot(x, x, n) / static_cast<float>(n) + 1e-5f);
  const Batch scale_v(scale);
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    (Batch::load_unaligned(x + i) * scale_v * Batch::load_unaligned(weight + i)).store_unaligned(out + i);
  for (; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void softmax(float* x, int n) {
  int i = 0;
  Batch max_v(x[0]);
  for (; i + kLanes <= n; i += kLanes) max_v = xsimd::max(max_v, Batch::load_unaligned(x + i));
  alignas(64) float lanes[kLanes];  // xsimd 8 has no horizontal max
  max_v.store_aligned(lanes);
  float max_value = lanes[0];
  for (float lane : lanes) max_value = lane > max_value ? lane : max_value;
  for (; i < n; ++i) max_value = x[i] > max_value ? x[i] : max_value;

  const Batch max_b(max_value);
  Batch sum_v(0.0f);
  for (i = 0; i + kLanes <= n; i += kLanes) {
    Batch e = xsimd::exp(Batch::load_unaligned(x + i) - max_b);
    e.store_unaligned(x + i);
    sum_v += e;
  }
  float sum = xsimd::hadd(sum_v);
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - max_value);
    sum += x[i];
  }
  const float inv_sum = 1.0f / sum;
  const Batch inv_v(inv_sum);
  for (i = 0; i + kLanes <= n; i += kLanes) (Batch::load_unaligned(x + i) * inv_v).store_unaligned(x + i);
  for (; i < n; ++i) x[i] *= inv_sum;
}

void swiglu(float* gate, const float* up, int n) {
  const Batch one(1.0f);
  int i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Batch g = Batch::load_unaligned(gate + i);
    (g / (one + xsimd::exp(-g)) * Batch::load_unaligned(up + i)).store_unaligned(gate + i);
  }
  for (; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void rope(float* vec, int n_heads, int head_dim, const float* cos, const float* sin) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    float* lo = vec + static_cast<size_t>(h) * head_dim;
    float* hi = lo + half;
    int i = 0;
    for (; i + kLanes <= half; i += kLanes) {
      Batch a = Batch::load_unaligned(lo + i), b = Batch::load_unaligned(hi + i);
      Batch c = Batch::load_unaligned(cos + i), s = Batch::load_unaligned(sin + i);
      (a * c - b * s).store_unaligned(lo + i);
      (a * s + b * c).store_unaligned(hi + i);
    }
    for (; i < half; ++i) {
      float a = lo[i], b = hi[i];
      lo[i] = a * cos[i] - b * sin[i];
      hi[i] = a * sin[i] + b * cos[i];
    }
  }
}

void attention(float* out, const float* q, const float* keys, const float* values, int context, int n_heads,
               int n_kv_heads, int head_dim, float* scores) {
  attention_over<SimdOps>(out, q, keys, values, context, n_heads, n_kv_heads, head_dim, scores);
}

const char* instruction_set() {
#ifdef __EMSCRIPTEN__
  return "wasm simd128";  // xsimd reports its sse4.1 backend, which Emscripten lowers to SIMD128
#else
  return xsimd::default_arch::name();
#endif
}

#else  // the KVLAB_SIMD=OFF build: the scalar twins are the kernels

void matmul(float* out, const float* x, const float* w, int n_rows, int n_in, int n_out) {
  scalar::matmul(out, x, w, n_rows, n_in, n_out);
}
float dot(const float* a, const float* b, int n) { return scalar::dot(a, b, n); }
void axpy(float* y, float a, const float* x, int n) { scalar::axpy(y, a, x, n); }
void add(float* y, const float* x, int n) { scalar::add(y, x, n); }
void rmsnorm(float* out, const float* x, const float* weight, int n) { scalar::rmsnorm(out, x, weight, n); }
void softmax(float* x, int n) { scalar::softmax(x, n); }
void swiglu(float* gate, const float* up, int n) { scalar::swiglu(gate, up, n); }
void rope(float* vec, int n_heads, int head_dim, const float* cos, const float* sin) {
  scalar::rope(vec, n_heads, head_dim, cos, sin);
}
void attention(float* out, const float* q, const float* keys, const float* values, int context, int n_heads,
               int n_kv_heads, int head_dim, float* scores) {
  scalar::attention(out, q, keys, values, context, n_heads, n_kv_heads, head_dim, scores);
}
const char* instruction_set() { return "scalar"; }

#endif

}  // namespace kvlab::kernels
