#pragma once
// The three generation paths over one Model (greedy decoding):
//   1. without a cache: every new token reruns the whole sequence so far;
//   2. with a KV cache: one prefill of the prompt, then one decode step per token;
//   3. batched decode: one step over several sequences, each with its own cache and length.
#include <cstdint>
#include <functional>
#include <vector>

#include "model/kv_cache.h"
#include "model/model.h"

namespace kvlab {

// A deterministic prompt of n_tokens ids below vocab, drawn from Rng(seed).
std::vector<int> make_prompt(int n_tokens, int vocab, uint64_t seed);

// Runs tokens[0 .. n) at positions start .. start+n-1 of `cache` in one pass and returns the greedy
// next token. If `logits_out` is given, the last row's logits are appended to it; if not, the pass is
// the model's greedy pass, on its device when it has one (Model::run_on), as are the paths below.
int prefill(Model& model, KvCache& cache, const int* tokens, int n_tokens, int start_position,
            std::vector<float>* logits_out = nullptr);

// Path 1. `work_cache` is cleared before each token; it must hold prompt + answer - 1 positions.
// `on_token(k)`, if given, is called after token k (1-based): this path is slow enough to report on.
std::vector<int> generate_without_cache(Model& model, KvCache& work_cache, const std::vector<int>& prompt, int n_answer,
                                        std::vector<float>* logits_out = nullptr,
                                        const std::function<void(int)>& on_token = nullptr);

// Path 2. `cache` is cleared first; it must hold prompt + answer - 1 positions. `on_token(k)` as in path 1.
std::vector<int> generate_with_cache(Model& model, KvCache& cache, const std::vector<int>& prompt, int n_answer,
                                     std::vector<float>* logits_out = nullptr,
                                     const std::function<void(int)>& on_token = nullptr);

// One sequence being decoded in a batch: its cache and the token it feeds next.
struct DecodeSlot {
  KvCache* cache = nullptr;
  int next_input = 0;
};

// Path 3: one decode step over all slots (each at its own cache length). Each slot's next_input
// becomes the token it produced; `logits_out`, if given, receives [n_slots, vocab].
void decode_batch(Model& model, std::vector<DecodeSlot>& slots, std::vector<float>* logits_out = nullptr);

}  // namespace kvlab
