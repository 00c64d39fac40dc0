#pragma once
// One sequence's key/value cache: what a decode step reads instead of recomputing the past.
#include <cstddef>

#include "model/buffer.h"
#include "model/config.h"

namespace kvlab {

struct KvCache {
  int n_layers = 0;
  int capacity = 0;   // positions it can hold
  int kv_dim = 0;
  int length = 0;     // positions 0 .. length-1 hold valid keys and values
  FloatBuffer keys;   // [n_layers, capacity, kv_dim]
  FloatBuffer values; // [n_layers, capacity, kv_dim]

  KvCache() = default;
  KvCache(const ModelConfig& config, int capacity_positions)
      : n_layers(config.n_layers),
        capacity(capacity_positions),
        kv_dim(config.kv_dim()),
        keys(static_cast<size_t>(n_layers) * capacity * kv_dim),
        values(keys.size()) {}

  // [capacity, kv_dim] block of one layer.
  float* layer_keys(int layer) { return keys.data() + static_cast<size_t>(layer) * capacity * kv_dim; }
  float* layer_values(int layer) { return values.data() + static_cast<size_t>(layer) * capacity * kv_dim; }
};

}  // namespace kvlab
