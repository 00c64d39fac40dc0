#pragma once
// Key/value memory: what a decode step reads instead of recomputing the past.
//
// KvBlockPool holds the keys and values of many sequences in one allocation of fixed-size blocks (as
// PagedAttention does), layer-major so that one layer's attention reads one range, as a per-layer KV
// tensor does in vLLM. KvCache is one sequence: its block table says which pool block holds each run of
// block_tokens positions, so a sequence takes memory a block at a time, gives it back when done, and a
// block that holds a prefix several sequences share is computed once and read by each. Which blocks a
// sequence holds is its owner's decision (the serving engine follows the KV accounting of policy/kv_blocks.h);
// the model reads and writes positions through the table.
//
// The single-sequence contiguous cache is the special case of a pool of one block of `capacity` positions
// owned by the cache itself: [n_layers, 1, capacity, kv_dim] is the plain [n_layers, capacity, kv_dim].
//
// In a 16-bit format (config.kv, config.h) a position's key holds, for each KV head, head_dim / 2
// 32-bit words: word j has number j of the head in its low half and number j + head_dim / 2 in its high
// half (the pairs rotary embedding turns together). One 32-bit vector load then gives the same lanes of
// both halves of a head, widened with shifts and masks: no shuffles, whatever the vector width.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

#include "model/buffer.h"
#include "model/config.h"

namespace kvlab {

using KvPairBuffer = std::vector<uint32_t, xsimd::aligned_allocator<uint32_t, 64>>;

class KvBlockPool {
 public:
  // n_blocks >= 1 blocks of block_tokens >= 1 positions (callers check their inputs: InputError there),
  // in the configuration's KV format.
  KvBlockPool(const ModelConfig& config, int n_blocks, int block_tokens)
      : format_(config.kv),
        n_blocks_(n_blocks),
        block_tokens_(block_tokens),
        kv_dim_(config.kv_dim()),
        keys_(format_ == NumberFormat::f32 ? numbers(config.n_layers) : 0),
        values_(keys_.size()),
        key_pairs_(format_ == NumberFormat::f32 ? 0 : numbers(config.n_layers) / 2),
        value_pairs_(key_pairs_.size()) {}

  NumberFormat format() const { return format_; }
  int n_blocks() const { return n_blocks_; }
  int block_tokens() const { return block_tokens_; }
  int kv_dim() const { return kv_dim_; }
  // Words a position's key (as its value) takes: kv_dim floats, or kv_dim / 2 pairs.
  int words_per_position() const { return format_ == NumberFormat::f32 ? kv_dim_ : kv_dim_ / 2; }
  // Bytes of the keys and the values together.
  size_t bytes() const {
    return (keys_.size() + values_.size()) * sizeof(float) +
           (key_pairs_.size() + value_pairs_.size()) * sizeof(uint32_t);
  }

  // f32: [n_blocks, block_tokens, kv_dim] keys (values) of one layer; null in 16 bits.
  float* layer_keys(int layer) { return layer_of(keys_, layer); }
  float* layer_values(int layer) { return layer_of(values_, layer); }
  // bf16, f16: [n_blocks, block_tokens, n_kv_heads, head_dim / 2] pairs of one layer; null in f32.
  uint32_t* layer_key_pairs(int layer) { return layer_of(key_pairs_, layer); }
  uint32_t* layer_value_pairs(int layer) { return layer_of(value_pairs_, layer); }

 private:
  size_t numbers(int n_layers) const { return static_cast<size_t>(n_layers) * n_blocks_ * block_tokens_ * kv_dim_; }
  template <typename Buffer>
  typename Buffer::value_type* layer_of(Buffer& buffer, int layer) {
    return buffer.empty()
               ? nullptr
               : buffer.data() + static_cast<size_t>(layer) * n_blocks_ * block_tokens_ * words_per_position();
  }

  NumberFormat format_;
  int n_blocks_;
  int block_tokens_;
  int kv_dim_;
  FloatBuffer keys_;          // f32: [n_layers, n_blocks, block_tokens, kv_dim]; empty in 16 bits
  FloatBuffer values_;        // f32: [n_layers, n_blocks, block_tokens, kv_dim]; empty in 16 bits
  KvPairBuffer key_pairs_;    // bf16, f16: [n_layers, n_blocks, block_tokens, n_kv_heads, head_dim / 2]; empty in f32
  KvPairBuffer value_pairs_;  // bf16, f16: [n_layers, n_blocks, block_tokens, n_kv_heads, head_dim / 2]; empty in f32
};

// One layer of one sequence's keys and values, as attention reads them: position t is at offset
// t % block_tokens of pool block block_table[t / block_tokens].
struct KvLayerView {
  const float* keys;       // f32: the layer's [n_blocks, block_tokens, kv_dim] in the pool
  const float* values;     // likewise
  const int* block_table;  // [blocks covering the context]
  int block_tokens;
  NumberFormat format = NumberFormat::f32;
  const uint32_t* key_pairs = nullptr;    // bf16, f16: the layer's [n_blocks, block_tokens, n_kv_heads, head_dim / 2]
  const uint32_t* value_pairs = nullptr;  // likewise
};

class KvCache {
 public:
  std::vector<int> block_table;  // [capacity / block_tokens] pool block of positions b*block_tokens ..
  int length = 0;                // positions 0 .. length-1 hold valid keys and values

  KvCache() = default;
  // Contiguous: its own pool of one block of `capacity_positions` positions.
  KvCache(const ModelConfig& config, int capacity_positions)
      : block_table(1, 0),
        own_pool_(std::make_unique<KvBlockPool>(config, 1, capacity_positions)),
        pool_(own_pool_.get()) {}
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
  // Whether it holds its sequence in a pool of its own, not in blocks of a shared one.
  bool contiguous() const { return own_pool_ != nullptr; }
  // Positions its blocks can hold.
  int capacity() const { return static_cast<int>(block_table.size()) * pool_->block_tokens(); }

  // Where position `position`'s key (value) of `layer` is: f32, [kv_dim] floats.
  float* key_slot(int layer, int position) { return pool_->layer_keys(layer) + slot_offset(position); }
  float* value_slot(int layer, int position) { return pool_->layer_values(layer) + slot_offset(position); }
  // bf16, f16: [n_kv_heads, head_dim / 2] pairs.
  uint32_t* key_pair_slot(int layer, int position) { return pool_->layer_key_pairs(layer) + slot_offset(position); }
  uint32_t* value_pair_slot(int layer, int position) { return pool_->layer_value_pairs(layer) + slot_offset(position); }
  KvLayerView layer_view(int layer) {
    return {pool_->layer_keys(layer),
            pool_->layer_values(layer),
            block_table.data(),
            pool_->block_tokens(),
            pool_->format(),
            pool_->layer_key_pairs(layer),
            pool_->layer_value_pairs(layer)};
  }

 private:
  size_t slot_offset(int position) const {
    const int block_tokens = pool_->block_tokens();
    const size_t block = static_cast<size_t>(block_table[static_cast<size_t>(position / block_tokens)]);
    return (block * block_tokens + static_cast<size_t>(position % block_tokens)) * pool_->words_per_position();
  }

  std::unique_ptr<KvBlockPool> own_pool_;  // the contiguous case's storage; null when paged
  KvBlockPool* pool_ = nullptr;
};

}  // namespace kvlab
