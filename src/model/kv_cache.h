#pragma once
// Key/value memory: what a decode step reads instead of recomputing the past.
//
// KvBlockPool holds the keys and values of many sequences in one allocation of fixed-size blocks (as
// PagedAttention does), layer-major so that one layer's attention reads one range, as a per-layer KV
// tensor does in vLLM. KvCache is one sequence: its block table says which pool block holds each run of
// block_tokens positions, so a sequence takes memory a block at a time, gives it back when done, and a
// block that holds a prefix several sequences share is computed once and read by each. Which blocks a
// sequence holds is its owner's decision (the serving engine follows the KV accounting of sim/kv_blocks.h);
// the model reads and writes positions through the table.
//
// The single-sequence contiguous cache is the special case of a pool of one block of `capacity` positions
// owned by the cache itself: [n_layers, 1, capacity, kv_dim] is the plain [n_layers, capacity, kv_dim].
#include <cstddef>
#include <memory>
#include <vector>

#include "model/buffer.h"
#include "model/config.h"

namespace kvlab {

class KvBlockPool {
 public:
  // n_blocks >= 1 blocks of block_tokens >= 1 positions (callers check their inputs: InputError there).
  KvBlockPool(const ModelConfig& config, int n_blocks, int block_tokens)
      : n_blocks_(n_blocks),
        block_tokens_(block_tokens),
        kv_dim_(config.kv_dim()),
        keys_(static_cast<size_t>(config.n_layers) * n_blocks * block_tokens * kv_dim_),
        values_(keys_.size()) {}

  int n_blocks() const { return n_blocks_; }
  int block_tokens() const { return block_tokens_; }
  int kv_dim() const { return kv_dim_; }
  // Floats of the keys (as of the values): n_layers * n_blocks * block_tokens * kv_dim.
  size_t floats() const { return keys_.size(); }

  // [n_blocks, block_tokens, kv_dim] keys (values) of one layer.
  float* layer_keys(int layer) { return keys_.data() + layer_offset(layer); }
  float* layer_values(int layer) { return values_.data() + layer_offset(layer); }

 private:
  size_t layer_offset(int layer) const { return static_cast<size_t>(layer) * n_blocks_ * block_tokens_ * kv_dim_; }

  int n_blocks_;
  int block_tokens_;
  int kv_dim_;
  FloatBuffer keys_;    // [n_layers, n_blocks, block_tokens, kv_dim]
  FloatBuffer values_;  // [n_layers, n_blocks, block_tokens, kv_dim]
};

// One layer of one sequence's keys and values, as attention reads them: position t is at offset
// t % block_tokens of pool block block_table[t / block_tokens].
struct KvLayerView {
  const float* keys;       // the layer's [n_blocks, block_tokens, kv_dim] in the pool
  const float* values;     // likewise
  const int* block_table;  // [blocks covering the context]
  int block_tokens;
};

class KvCache {
 public:
  std::vector<int> block_table;  // [capacity / block_tokens] pool block of positions b*block_tokens ..
  int length = 0;                // positions 0 .. length-1 hold valid keys and values

  KvCache() = default;
  // Contiguous: its own pool of one block of `capacity_positions` positions.
  KvCache(const ModelConfig& config, int capacity_positions)
      : block_table(1, 0), own_pool_(std::make_unique<KvBlockPool>(config, 1, capacity_positions)), pool_(own_pool_.get()) {}
  // Paged: positions in blocks of `pool`, which must outlive it; block_table is its owner's to fill.
  explicit KvCache(KvBlockPool& pool) : pool_(&pool) {}
  // A copy of a contiguous cache copies its keys and values; a paged one's copy reads the same blocks.
  KvCache(const KvCache& other) { *this = other; }
  KvCache& operator=(const KvCache& other) {
    if (this == &other) return *this;
    own_pool_ = other.own_pool_ ? std::make_unique<KvBlockPool>(*other.own_pool_) : nullptr;
    pool_ = own_pool_ ? own_pool_.get() : other.pool_;
    block_table = other.block_table;
    length = other.length;
    return *this;
  }
  KvCache(KvCache&&) = default;
  KvCache& operator=(KvCache&&) = default;

  const KvBlockPool& pool() const { return *pool_; }
  // Positions its blocks can hold.
  int capacity() const { return static_cast<int>(block_table.size()) * pool_->block_tokens(); }

  // Where position `position`'s key (value) of `layer` is: [kv_dim] floats.
  float* key_slot(int layer, int position) { return pool_->layer_keys(layer) + slot_offset(position); }
  float* value_slot(int layer, int position) { return pool_->layer_values(layer) + slot_offset(position); }
  KvLayerView layer_view(int layer) {
    return {pool_->layer_keys(layer), pool_->layer_values(layer), block_table.data(), pool_->block_tokens()};
  }

 private:
  size_t slot_offset(int position) const {
    const int block_tokens = pool_->block_tokens();
    const size_t block = static_cast<size_t>(block_table[static_cast<size_t>(position / block_tokens)]);
    return (block * block_tokens + static_cast<size_t>(position % block_tokens)) * pool_->kv_dim();
  }

  std::unique_ptr<KvBlockPool> own_pool_;  // the contiguous case's storage; null when paged
  KvBlockPool* pool_ = nullptr;
};

}  // namespace kvlab
