#pragma once
// The model's numeric kernels. `kvlab::kernels` is what the forward pass calls: xsimd batches with
// scalar tails (or, in a KVLAB_SIMD=OFF build, the scalar twins). `kvlab::kernels::scalar` holds the
// plain-loop twins that the tests compare against. Shapes are in the comments; matrices are row-major.

#include "model/packed_matrix.h"

namespace kvlab::kernels {

// out[r, o] = sum_i x[r, i] * W[o, i], summed in order of i.  x: [n_rows, w.n_in], out: [n_rows, w.n_out].
// Each weight vector loaded serves a block of rows, so extra rows cost little memory traffic.
void matmul(float* out, const float* x, const PackedMatrix& w, int n_rows);

// sum_i a[i] * b[i]
float dot(const float* a, const float* b, int n);

// y[i] += a * x[i]
void axpy(float* y, float a, const float* x, int n);

// y[i] += x[i]  (the residual connection)
void add(float* y, const float* x, int n);

// out[i] = x[i] * weight[i] / sqrt(mean(x^2) + 1e-5)
void rmsnorm(float* out, const float* x, const float* weight, int n);

// x[i] = exp(x[i] - max x) / sum_j exp(x[j] - max x), in place
void softmax(float* x, int n);

// gate[i] = silu(gate[i]) * up[i], with silu(g) = g / (1 + exp(-g))
void swiglu(float* gate, const float* up, int n);

// Rotary position embedding, "rotate half" form (as Llama's reference code): within each head the
// pair (v[i], v[i + head_dim/2]) turns by angle i of one position; contiguous halves vectorise simply.
// vec: [n_heads, head_dim]; cos, sin: [head_dim / 2] for that position.
void rope(float* vec, int n_heads, int head_dim, const float* cos, const float* sin);

// Causal attention of one query position over `context` cached positions, grouped-query:
// query head h reads kv head h / (n_heads / n_kv_heads).
// out, q: [n_heads, head_dim]; keys, values: [context, n_kv_heads * head_dim]; scores: [context] scratch.
void attention(float* out, const float* q, const float* keys, const float* values, int context, int n_heads,
               int n_kv_heads, int head_dim, float* scores);

// Index of the largest value (the first one on ties).
int argmax(const float* x, int n);

namespace scalar {
void matmul(float* out, const float* x, const PackedMatrix& w, int n_rows);
float dot(const float* a, const float* b, int n);
void axpy(float* y, float a, const float* x, int n);
void add(float* y, const float* x, int n);
void rmsnorm(float* out, const float* x, const float* weight, int n);
void softmax(float* x, int n);
void swiglu(float* gate, const float* up, int n);
void rope(float* vec, int n_heads, int head_dim, const float* cos, const float* sin);
void attention(float* out, const float* q, const float* keys, const float* values, int context, int n_heads,
               int n_kv_heads, int head_dim, float* scores);
}  // namespace scalar

// Name of the instruction set the kernels were built for ("avx2+fma", "wasm simd128", "scalar").
const char* instruction_set();

}  // namespace kvlab::kernels
