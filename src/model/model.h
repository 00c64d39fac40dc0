#pragma once
// The transformer: weights plus the scratch buffers of one forward pass, in the manner of llama2.c.
// One forward pass handles every case the lab needs, as a list of rows, each row one token at one
// position of one sequence's cache:
//   - a prompt prefill: the prompt's tokens as rows of one cache at positions 0 .. p-1;
//   - a no-cache step: the same over the whole sequence so far, into a cache cleared first;
//   - a batched decode step: one row per sequence, each with its own cache and context length.
// In each layer every row's key and value are written to its cache before any row attends, and row
// at position t attends over positions 0 .. t of its own cache: causal within a prefill, private
// across sequences.
#include <memory>
#include <vector>

#include "model/buffer.h"
#include "model/config.h"
#include "model/forward_device.h"
#include "model/input_blocks.h"
#include "model/kv_cache.h"
#include "model/thread_pool.h"
#include "model/weights.h"

namespace kvlab {

struct Row {
  int token = 0;
  KvCache* cache = nullptr;
  int position = 0;          // where this token sits in its sequence; its context is position + 1
  bool want_logits = false;  // only rows that produce a token need the output projection
};

// Activations of one forward pass, sized for up to `capacity_rows` rows.
struct Scratch {
  int capacity_rows = 0;
  FloatBuffer x;                  // [rows, d_model] residual stream
  FloatBuffer xb;                 // [rows, d_model] normalised input of a sub-layer
  FloatBuffer q;                  // [rows, d_model] queries
  FloatBuffer k;                  // [rows, kv_dim] keys of the new tokens
  FloatBuffer v;                  // [rows, kv_dim] values of the new tokens
  FloatBuffer attn;               // [rows, d_model] attention output, before wo
  FloatBuffer proj;               // [rows, d_model] output of wo or w_down, added to x
  FloatBuffer gate;               // [rows, d_ff]
  FloatBuffer up;                 // [rows, d_ff]
  FloatBuffer scores;             // [threads, max_seq] attention weights of one head, one row per thread
  FloatBuffer final_rows;         // [rows, d_model] normalised rows that want logits
  FloatBuffer logits;             // [rows, vocab]
  FloatBuffer interleaved;        // [rows, largest n_in of the weight matrices]: kernels::matmul's interleave_scratch
  InputBlockBuffer input_blocks;  // [rows, largest n_in / 32]: a quantized matmul's inputs (input_blocks.h)
};

class Model {
 public:
  // Random weights: `config` must have passed validate().
  explicit Model(const ModelConfig& config);
  // Given weights (a model file's: pack_weights).
  explicit Model(Weights weights);

  const ModelConfig& config() const { return weights_.config; }
  const Weights& weights() const { return weights_; }

  // The threads a forward pass runs on (1 .. max_threads(): callers check their inputs); 1 until set.
  // The matrix products are split by output panels and attention by heads, each output computed by one
  // thread exactly as on one, so the logits are the same bit for bit whatever the count.
  void set_threads(int n_threads);
  int threads() const { return pool_->size(); }
  // The pool the forward pass forks on; benchmarks time a memory read on the same threads.
  ThreadPool& pool() { return *pool_; }
  // The pool's forks (and joins) in one forward pass, whatever the rows: per layer q|k|v, attention, wo,
  // gate|up, SwiGLU, w_down; then the output projection (docs/threads.md, "Forks per step").
  static int forks_per_step(const ModelConfig& c) { return 6 * c.n_layers + 1; }

  // Sizes the scratch for n_rows rows; forward() calls it too, but callers that time steps call it
  // first so that no step allocates.
  void reserve_rows(int n_rows);

  // Runs the rows through the network. Returns the logits [n_wanted, vocab] of the rows with
  // want_logits, in row order (valid until the next call). Extends each cache's length.
  const float* forward(const std::vector<Row>& rows);

  // The greedy passes (greedy_tokens(), and generate.h's without logits) run on `device` from now on,
  // or here again with nullptr; forward() always runs here. The caller keeps the device alive.
  void run_on(ForwardDevice* device) { device_ = device; }
  ForwardDevice* device() const { return device_; }
  // The greedy token of each row with want_logits, in row order, into `tokens`: forward() and argmax,
  // or the device's pass.
  void greedy_tokens(const std::vector<Row>& rows, std::vector<int>& tokens);

 private:
  void attention_block(const LayerWeights& layer, int layer_index, const std::vector<Row>& rows);
  void feed_forward_block(const LayerWeights& layer, int n_rows);
  struct Product;
  // out = inputs x w for each product, their panels shared out to the threads as one list.
  void matmuls(const Product* products, int n_products, const float* x, int n_rows);

  Weights weights_;
  Scratch scratch_;
  std::unique_ptr<ThreadPool> pool_;
  ForwardDevice* device_ = nullptr;
};

}  // namespace kvlab
