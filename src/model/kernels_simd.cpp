// The kernels the forward pass calls: xsimd batch loops with scalar tails, on the backend that the
// build's flags enable (KVLAB_ARCH, cmake/flags.cmake): AVX2+FMA, SSE2 or NEON natively; SSE4.1 lowered
// to wasm SIMD128 under Emscripten. xsimd::fma is a fused multiply-add where the backend has one and a
// multiply then an add where it has not (SSE2, SSE4.1/wasm). A KVLAB_SIMD=OFF build uses the scalar
// twins instead.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "model/attention_impl.h"
#include "model/kernels.h"
#include "model/simd_arch.h"

namespace kvlab::kernels {

#if KVLAB_SIMD

namespace {

using Batch = FloatBatch;
using PairBatch = xsimd::batch<uint32_t, SimdArch>;  // two bfloat16 weights a lane
static_assert(PairBatch::size == Batch::size, "a pair vector widens to one float vector of each input");

constexpr int kVectorsPerPanel = kPanelWidth / kFloatLanes;
static_assert(kPanelWidth % kFloatLanes == 0, "a panel must be whole vectors");

// R rows x NP panels: R * NP * kVectorsPerPanel independent running sums, enough to hide the FMA
// latency; each panel vector loaded serves R rows, each broadcast input serves NP panels.
template <int R, int NP>
struct BlockSums {
  static constexpr int V = kVectorsPerPanel;
  Batch acc[R][NP * V];

  BlockSums() {
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NP * V; ++v) acc[r][v] = Batch(0.0f);
  }
  // Adds one input's weights wv (NP panels x V vectors) times each row's value of it, xi[r] (the
  // block's inputs are interleaved: see interleave_rows).
  void add(const Batch* wv, const float* xi) {
    for (int r = 0; r < R; ++r) {
      const Batch xv(xi[r]);
      for (int v = 0; v < NP * V; ++v) acc[r][v] = xsimd::fma(xv, wv[v], acc[r][v]);
    }
  }
};

// Where each of NP panels from first_panel starts in the arena (stripes through all matrices: packed_matrix.h).
template <int NP, class Word>
void panel_starts(const Word* (&start)[NP], const Word* arena, const PackedMatrix& w, int first_panel) {
  for (int p = 0; p < NP; ++p) start[p] = arena + w.panel_offset(first_panel + p);
}

// Float32 panels: one vector load per panel vector and input. xs: the block's inputs [n_in, R].
// The pointers step on by one input each time rather than being indexed by i: Emscripten compiles
// with LLVM's loop strength reduction off, so in wasm an index costs a shift and an add per load.
template <int R, int NP>
void sum_f32(BlockSums<R, NP>& sums, const float* xs, const PackedMatrix& w, int first_panel) {
  constexpr int V = kVectorsPerPanel;
  const int n_in = w.n_in;
  const float* panel[NP];
  panel_starts(panel, w.arena->panels.data(), w, first_panel);
  for (int i = 0; i < n_in; ++i) {
    Batch wv[NP * V];
    for (int p = 0; p < NP; ++p) {
      for (int v = 0; v < V; ++v) wv[p * V + v] = Batch::load_aligned(panel[p] + v * kFloatLanes);
      panel[p] += kPanelWidth;
    }
    sums.add(wv, xs);
    xs += R;
  }
}

// Bfloat16 pairs: one 32-bit vector load per panel vector and two inputs, widened in registers (the
// low halves shifted up give input 2j, the high halves masked give input 2j + 1), summed in input order.
// The pointers step on as in sum_f32: the panels by one pair, the inputs by two.
template <int R, int NP>
void sum_bf16(BlockSums<R, NP>& sums, const float* xs, const PackedMatrix& w, int first_panel) {
  constexpr int V = kVectorsPerPanel;
  const int n_in = w.n_in;
  const uint32_t* panel[NP];
  panel_starts(panel, w.arena->pairs.data(), w, first_panel);
  const PairBatch high_half(0xFFFF0000u);
  PairBatch pair[NP * V];
  Batch wv[NP * V];
  const auto load_next_pair = [&] {
    for (int p = 0; p < NP; ++p) {
      for (int v = 0; v < V; ++v) pair[p * V + v] = PairBatch::load_aligned(panel[p] + v * kFloatLanes);
      panel[p] += kPanelWidth;
    }
    for (int v = 0; v < NP * V; ++v) wv[v] = xsimd::bitwise_cast<Batch>(pair[v] << 16);
  };
  for (int j = 0; j < n_in / 2; ++j) {
    load_next_pair();
    sums.add(wv, xs);
    for (int v = 0; v < NP * V; ++v) wv[v] = xsimd::bitwise_cast<Batch>(pair[v] & high_half);
    sums.add(wv, xs + R);
    xs += 2 * R;
  }
  if (n_in % 2 == 1) {  // the last input alone: its pair's high halves are padding
    load_next_pair();
    sums.add(wv, xs);
  }
}

// xs: the block's inputs interleaved, [n_in, R].
template <int R, int NP>
void matmul_block(float* out, const float* xs, const PackedMatrix& w, int first_panel) {
  constexpr int V = kVectorsPerPanel;
  BlockSums<R, NP> sums;
  if (w.format == NumberFormat::bf16)
    sum_bf16(sums, xs, w, first_panel);
  else
    sum_f32(sums, xs, w, first_panel);
  auto& acc = sums.acc;
  // Store whole panels; the last panel of a matrix whose n_out is not a multiple of 8 is cut short.
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < NP; ++p) {
      const int o = (first_panel + p) * kPanelWidth;
      float* dst = out + static_cast<size_t>(r) * w.n_out + o;
      if (o + kPanelWidth <= w.n_out) {
        for (int v = 0; v < V; ++v) acc[r][p * V + v].store_unaligned(dst + v * kFloatLanes);
      } else {
        alignas(64) float tail[kPanelWidth];
        for (int v = 0; v < V; ++v) acc[r][p * V + v].store_aligned(tail + v * kFloatLanes);
        for (int t = 0; t < w.n_out - o; ++t) dst[t] = tail[t];
      }
    }
  }
}

// Blocks of 4 rows with about 8 running sums measured best both natively (AVX2) and in wasm SIMD128
// (tried 2x8, 4x12, 6x12 and 8x16 too: more sums spill registers, fewer leave FMA latency exposed).
constexpr int kRowBlock = 4;
constexpr int kSums = 8;

// Panels a block of R rows reads side by side: about kSums running sums.
constexpr int block_panels(int rows) {
  return kSums / (rows * kVectorsPerPanel) > 0 ? kSums / (rows * kVectorsPerPanel) : 1;
}

// Every panel for a block of R rows: NP panels at a time, then one at a time.
template <int R>
void matmul_rows(float* out, const float* xs, const PackedMatrix& w, int first_panel, int end_panel) {
  constexpr int NP = block_panels(R);
  int p = first_panel;
  for (; p + NP <= end_panel; p += NP) matmul_block<R, NP>(out, xs, w, p);
  for (; p < end_panel; ++p) matmul_block<R, 1>(out, xs, w, p);
}

// The last rows_left (< kRowBlock) rows, with a block of exactly that many rows.
template <int R>
void matmul_rest(int rows_left, float* out, const float* xs, const PackedMatrix& w, int first_panel, int end_panel) {
  if constexpr (R > 0) {
    if (rows_left == R)
      matmul_rows<R>(out, xs, w, first_panel, end_panel);
    else
      matmul_rest<R - 1>(rows_left, out, xs, w, first_panel, end_panel);
  }
}

struct SimdOps {
  static float dot(const float* a, const float* b, int n) { return kernels::dot(a, b, n); }
  static void axpy(float* y, float a, const float* x, int n) { kernels::axpy(y, a, x, n); }
  static void softmax(float* x, int n) { kernels::softmax(x, n); }
  template <NumberFormat F>
  static float dot_pairs(const float* q, const uint32_t* k, int head_dim) {
    return kernels::dot_pairs<F>(q, k, head_dim);
  }
  template <NumberFormat F>
  static void axpy_pairs(float* y, float a, const uint32_t* v, int head_dim) {
    kernels::axpy_pairs<F>(y, a, v, head_dim);
  }
};

// Rows 0 .. R - 1 of x [R, n_in] interleaved into xs [n_in, R]: a block reads the R values of input i
// side by side, from one pointer at constant offsets, instead of from R rows n_in floats apart.
void interleave_rows(float* xs, const float* x, int n_in, int rows) {
  for (int i = 0; i < n_in; ++i)
    for (int r = 0; r < rows; ++r) xs[static_cast<size_t>(i) * rows + r] = x[static_cast<size_t>(r) * n_in + i];
}

}  // namespace

void matmul(float* out, const float* x, const PackedMatrix& w, int n_rows, float* interleave_scratch) {
  if (w.blocks) {
    InputBlockBuffer blocks(static_cast<size_t>(n_rows) * (w.n_in / kInputBlockWidth));
    quantize_inputs(blocks.data(), x, n_rows, w.n_in);
    matmul_blocks(out, blocks.data(), w, n_rows, 0, w.n_panels());
    return;
  }
  matmul_panels(out, matmul_inputs(x, w.n_in, n_rows, interleave_scratch), w, n_rows, 0, w.n_panels());
}

const float* matmul_inputs(const float* x, int n_in, int n_rows, float* interleave_scratch) {
  // Every row block's inputs interleaved, block by block (each block's R x n_in floats where its rows
  // were). One row is its own interleaving; more are copied into the caller's scratch.
  if (n_rows <= 1) return x;
  for (int r = 0; r < n_rows; r += kRowBlock)
    interleave_rows(interleave_scratch + static_cast<size_t>(r) * n_in, x + static_cast<size_t>(r) * n_in, n_in,
                    std::min(kRowBlock, n_rows - r));
  return interleave_scratch;
}

void matmul_panels(float* out, const float* inputs, const PackedMatrix& w, int n_rows, int first_panel, int end_panel) {
  // Panels outer, row blocks inner: a group of panels stays in L1 while every row block uses it,
  // so each weight comes from memory once per step however many rows there are.
  constexpr int kPanelsPerGroup = 8;  // 8 panels x n_in 256 x 8 floats = 64 KiB at the default width
  for (int group = first_panel; group < end_panel; group += kPanelsPerGroup) {
    const int end = std::min(group + kPanelsPerGroup, end_panel);
    int r = 0;
    for (; r + kRowBlock <= n_rows; r += kRowBlock)
      matmul_rows<kRowBlock>(out + static_cast<size_t>(r) * w.n_out, inputs + static_cast<size_t>(r) * w.n_in, w, group,
                             end);
    matmul_rest<kRowBlock - 1>(n_rows - r, out + static_cast<size_t>(r) * w.n_out,
                               inputs + static_cast<size_t>(r) * w.n_in, w, group, end);
  }
}

float dot(const float* a, const float* b, int n) {
  Batch acc(0.0f);
  int i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes)
    acc = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy(float* y, float a, const float* x, int n) {
  const Batch av(a);
  int i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes)
    xsimd::fma(av, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

void add(float* y, const float* x, int n) {
  int i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes)
    (Batch::load_unaligned(y + i) + Batch::load_unaligned(x + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += x[i];
}

void rmsnorm(float* out, const float* x, const float* weight, int n, float epsilon) {
  const float scale = 1.0f / std::sqrt(dot(x, x, n) / static_cast<float>(n) + epsilon);
  const Batch scale_v(scale);
  int i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes)
    (Batch::load_unaligned(x + i) * scale_v * Batch::load_unaligned(weight + i)).store_unaligned(out + i);
  for (; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void softmax(float* x, int n) {
  int i = 0;
  Batch max_v(x[0]);
  for (; i + kFloatLanes <= n; i += kFloatLanes) max_v = xsimd::max(max_v, Batch::load_unaligned(x + i));
  alignas(64) float lanes[kFloatLanes];  // xsimd 8 has no horizontal max
  max_v.store_aligned(lanes);
  float max_value = lanes[0];
  for (float lane : lanes) max_value = lane > max_value ? lane : max_value;
  for (; i < n; ++i) max_value = x[i] > max_value ? x[i] : max_value;

  const Batch max_b(max_value);
  Batch sum_v(0.0f);
  for (i = 0; i + kFloatLanes <= n; i += kFloatLanes) {
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
  for (i = 0; i + kFloatLanes <= n; i += kFloatLanes) (Batch::load_unaligned(x + i) * inv_v).store_unaligned(x + i);
  for (; i < n; ++i) x[i] *= inv_sum;
}

void swiglu(float* gate, const float* up, int n) {
  const Batch one(1.0f);
  int i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes) {
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
    for (; i + kFloatLanes <= half; i += kFloatLanes) {
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

void attention(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
               int head_dim, float* scores) {
  attention_over<SimdOps>(out, q, kv, context, n_heads, n_kv_heads, head_dim, 0, n_heads, scores);
}

void attention_heads(float* out, const float* q, const KvLayerView& kv, int context, int n_heads, int n_kv_heads,
                     int head_dim, int first_head, int end_head, float* scores) {
  attention_over<SimdOps>(out, q, kv, context, n_heads, n_kv_heads, head_dim, first_head, end_head, scores);
}

int one_row_panels() { return block_panels(1); }

const char* instruction_set() {
#ifdef __EMSCRIPTEN__
  return "wasm simd128";  // xsimd reports its sse4.1 backend, which Emscripten lowers to SIMD128
#else
  return SimdArch::name();
#endif
}

#else  // the KVLAB_SIMD=OFF build: the scalar twins are the kernels (kernels.h)

const char* instruction_set() { return "scalar"; }

int one_row_panels() { return 1; }  // the scalar twins read the weights by PackedMatrix::at

#endif

const char* arch_setting() { return KVLAB_ARCH_NAME; }

}  // namespace kvlab::kernels
