// The three generation paths agree: cached = uncached (tokens equal, logits within 1e-4 relative),
// a batch row = the same sequence alone; weights and tokens are deterministic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "model/config.h"
#include "model/generate.h"
#include "model/kernels.h"
#include "model/model.h"

namespace kvlab {
namespace {

ModelConfig preset(const char* name) { return find_preset(name, "preset").config; }

// Largest |a - b| / max(1, |b|) over the two logit streams.
float max_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0.0f;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::fabs(a[i] - b[i]) / std::max(1.0f, std::fabs(b[i])));
  return worst;
}

void expect_cache_matches_no_cache(const ModelConfig& config, int prompt_tokens, int answer_tokens) {
  Model model(config);
  KvCache cache(config, prompt_tokens + answer_tokens);
  auto prompt = make_prompt(prompt_tokens, config.vocab, 7);
  std::vector<float> logits_nocache, logits_cache;
  auto tokens_nocache = generate_without_cache(model, cache, prompt, answer_tokens, &logits_nocache);
  auto tokens_cache = generate_with_cache(model, cache, prompt, answer_tokens, &logits_cache);
  ASSERT_EQ(tokens_nocache.size(), static_cast<size_t>(answer_tokens));
  EXPECT_EQ(tokens_nocache, tokens_cache);
  ASSERT_EQ(logits_nocache.size(), logits_cache.size());
  EXPECT_LT(max_relative_difference(logits_cache, logits_nocache), 1e-4f);
}

TEST(Generation, CachedEqualsUncachedOnTinyModel) { expect_cache_matches_no_cache(preset("tiny"), 16, 48); }

TEST(Generation, CachedEqualsUncachedOnDefaultModel) {
  expect_cache_matches_no_cache(model_presets()[0].config, 16, 24);
}

ModelConfig in_bf16(ModelConfig c) {
  c.weights = NumberFormat::bf16;
  return c;
}

TEST(Generation, Bf16CachedEqualsUncachedOnTinyModel) {
  expect_cache_matches_no_cache(in_bf16(preset("tiny")), 16, 48);
}

TEST(Generation, Bf16CachedEqualsUncachedOnDefaultModel) {
  expect_cache_matches_no_cache(in_bf16(model_presets()[0].config), 16, 24);
}

struct Agreement {
  int same_free;             // answer positions where the two greedy answers hold the same token
  int first_difference;      // answer token (from 1) where they first differ; answer_tokens + 1 if never
  size_t positions;          // teacher-forced positions compared
  double share_forced;       // of which the share with the same greedy next token
  float largest_difference;  // largest |logit difference| over them
  float largest_logit;       // largest |logit| of the f32 model
};

// `other` against `f32` (the same weights drawn, stored or cached in another format), printed as
// `name`, over a long answer: free running, the share of answer positions where the two greedy answers
// hold the same token; teacher forced, both models read f32's whole sequence in one pass, and at every
// position we compare their greedy next token and their logits. Reported, not asserted beyond sanity
// (docs/benchmarks.md quotes the printed figures): the formats compute different models.
Agreement agreement_with_f32(const ModelConfig& f32, const ModelConfig& other, const char* name) {
  const int prompt_tokens = 16, answer_tokens = 200;
  Model model_f32(f32), model_other(other);
  KvCache cache_f32(f32, prompt_tokens + answer_tokens), cache_other(other, prompt_tokens + answer_tokens);
  const std::vector<int> prompt = make_prompt(prompt_tokens, f32.vocab, 7);
  const std::vector<int> answer_f32 = generate_with_cache(model_f32, cache_f32, prompt, answer_tokens);
  const std::vector<int> answer_other = generate_with_cache(model_other, cache_other, prompt, answer_tokens);
  Agreement a{0, answer_tokens + 1, 0, 0, 0.0f, 0.0f};
  for (int k = answer_tokens - 1; k >= 0; --k) {
    a.same_free += answer_f32[k] == answer_other[k];
    if (answer_f32[k] != answer_other[k]) a.first_difference = k + 1;
  }

  std::vector<int> sequence = prompt;
  sequence.insert(sequence.end(), answer_f32.begin(), answer_f32.end() - 1);
  auto all_logits = [&](Model& model) {
    KvCache fresh(model.config(), static_cast<int>(sequence.size()));
    std::vector<Row> rows;
    for (int t = 0; t < static_cast<int>(sequence.size()); ++t) rows.push_back(Row{sequence[t], &fresh, t, true});
    const float* logits = model.forward(rows);
    return std::vector<float>(logits, logits + rows.size() * f32.vocab);
  };
  const std::vector<float> logits_f32 = all_logits(model_f32), logits_other = all_logits(model_other);
  int same_forced = 0;
  a.positions = sequence.size();
  for (size_t t = 0; t < sequence.size(); ++t) {
    const float* x = logits_f32.data() + t * f32.vocab;
    const float* y = logits_other.data() + t * f32.vocab;
    same_forced += kernels::argmax(x, f32.vocab) == kernels::argmax(y, f32.vocab);
    for (int v = 0; v < f32.vocab; ++v) {
      a.largest_difference = std::max(a.largest_difference, std::fabs(x[v] - y[v]));
      a.largest_logit = std::max(a.largest_logit, std::fabs(x[v]));
    }
  }
  a.share_forced = static_cast<double>(same_forced) / static_cast<double>(sequence.size());
  std::printf(
      "%s vs f32, default model, prompt %d + answer %d: free-running answers share %d of %d tokens "
      "(first difference at answer token %d); teacher forced over %zu positions: same greedy token at %.1f%%, "
      "largest logit difference %.4f (largest |logit| %.2f)\n",
      name, prompt_tokens, answer_tokens, a.same_free, answer_tokens, a.first_difference, a.positions,
      100 * a.share_forced, a.largest_difference, a.largest_logit);
  return a;
}

TEST(Generation, Bf16AgreementWithF32IsReported) {
  const ModelConfig f32 = model_presets()[0].config;
  const Agreement a = agreement_with_f32(f32, in_bf16(f32), "bf16 weights");
  EXPECT_GT(a.largest_difference, 0.0f);  // the formats really differ
  EXPECT_GT(a.share_forced, 0.5);         // and still compute the same model, roughly
}

ModelConfig with_kv(ModelConfig c, NumberFormat kv) {
  c.kv = kv;
  return c;
}

TEST(Generation, SixteenBitKvCachedEqualsUncachedOnTinyModel) {
  for (NumberFormat kv : {NumberFormat::bf16, NumberFormat::f16})
    expect_cache_matches_no_cache(with_kv(preset("tiny"), kv), 16, 48);
}

TEST(Generation, SixteenBitKvCachedEqualsUncachedOnDefaultModel) {
  for (NumberFormat kv : {NumberFormat::bf16, NumberFormat::f16})
    expect_cache_matches_no_cache(with_kv(model_presets()[0].config, kv), 16, 24);
}

TEST(Generation, SixteenBitKvAgreementWithF32IsReported) {
  const ModelConfig f32 = model_presets()[0].config;
  for (NumberFormat kv : {NumberFormat::bf16, NumberFormat::f16}) {
    const std::string name = std::string(number_format_name(kv)) + " KV cache";
    const Agreement a = agreement_with_f32(f32, with_kv(f32, kv), name.c_str());
    EXPECT_GT(a.largest_difference, 0.0f);  // the cache really holds other numbers
    EXPECT_GT(a.share_forced, 0.5);
  }
  const Agreement both =
      agreement_with_f32(f32, with_kv(in_bf16(f32), NumberFormat::bf16), "bf16 weights and bf16 KV cache");
  EXPECT_GT(both.share_forced, 0.5);
}

TEST(Generation, CachedEqualsUncachedForEveryHeadGrouping) {
  for (int n_kv_heads : {1, 2, 4, 8}) {
    ModelConfig c = preset("tiny");
    c.d_model = 64;
    c.n_heads = 8;
    c.n_kv_heads = n_kv_heads;
    SCOPED_TRACE(n_kv_heads);
    expect_cache_matches_no_cache(c, 5, 12);
  }
}

TEST(Generation, OneTokenPromptAndOneTokenAnswer) { expect_cache_matches_no_cache(preset("tiny"), 1, 1); }

TEST(Generation, BatchRowsEqualEachSequenceAlone) {
  const ModelConfig config = preset("tiny");
  Model model(config);
  const std::vector<int> prompt_lengths = {3, 9, 1, 14, 6};
  const int answer_tokens = 10;

  // Each sequence alone.
  std::vector<std::vector<int>> alone;
  std::vector<std::vector<int>> prompts;
  for (size_t i = 0; i < prompt_lengths.size(); ++i) {
    prompts.push_back(make_prompt(prompt_lengths[i], config.vocab, 100 + i));
    KvCache cache(config, 64);
    alone.push_back(generate_with_cache(model, cache, prompts.back(), answer_tokens));
  }

  // All together: prefill each, then batched decode steps over rows of different lengths; rows join
  // late (sequence i starts decoding at step i) so that contexts differ and the batch changes size.
  std::vector<KvCache> caches(prompts.size(), KvCache(config, 64));
  std::vector<std::vector<int>> together(prompts.size());
  std::vector<DecodeSlot> slots;
  std::vector<size_t> slot_owner;
  for (int step = 0; step < answer_tokens + static_cast<int>(prompts.size()); ++step) {
    if (step < static_cast<int>(prompts.size())) {
      KvCache& cache = caches[step];
      together[step].push_back(prefill(model, cache, prompts[step].data(), prompt_lengths[step], 0));
      slots.push_back({&cache, together[step].back()});
      slot_owner.push_back(step);
    }
    std::vector<float> logits;
    decode_batch(model, slots, &logits);
    ASSERT_EQ(logits.size(), slots.size() * config.vocab);
    for (size_t i = 0; i < slots.size(); ++i) together[slot_owner[i]].push_back(slots[i].next_input);
    // Rows that have their answer leave the batch.
    for (size_t i = slots.size(); i-- > 0;) {
      if (static_cast<int>(together[slot_owner[i]].size()) == answer_tokens) {
        slots.erase(slots.begin() + i);
        slot_owner.erase(slot_owner.begin() + i);
      }
    }
  }
  EXPECT_EQ(together, alone);
}

TEST(Generation, EveryMatrixSharesOneArenaInForwardOrder) {
  for (NumberFormat format : {NumberFormat::f32, NumberFormat::bf16}) {
    ModelConfig c = preset("tiny");
    c.weights = format;
    const Weights w = make_weights(c);
    const std::vector<const PackedMatrix*> matrices = weight_matrices(w);
    ASSERT_EQ(matrices.size(), 7u * c.n_layers + 1);
    EXPECT_EQ(matrices[0], &w.layers[0].wq);
    EXPECT_EQ(matrices[6], &w.layers[0].w_down);
    EXPECT_EQ(matrices[7], &w.layers[1].wq);
    EXPECT_EQ(matrices.back(), &w.w_out);
    // Each matrix has its own shape [n_out, n_in].
    const std::vector<std::pair<int, int>> layer_shapes = {
        {c.d_model, c.d_model}, {c.kv_dim(), c.d_model}, {c.kv_dim(), c.d_model}, {c.d_model, c.d_model},
        {c.d_ff, c.d_model},    {c.d_ff, c.d_model},     {c.d_model, c.d_ff}};
    for (size_t k = 0; k + 1 < matrices.size(); ++k)
      EXPECT_EQ(std::make_pair(matrices[k]->n_out, matrices[k]->n_in), layer_shapes[k % 7]) << "matrix " << k;
    EXPECT_EQ(std::make_pair(w.w_out.n_out, w.w_out.n_in), std::make_pair(c.vocab, c.d_model));
    // Each stripe runs from the first layer's wq to w_out without a gap.
    for (int s = 0; s < matrices[0]->stripes; ++s) {
      for (size_t k = 0; k + 1 < matrices.size(); ++k) {
        const PackedMatrix& m = *matrices[k];
        EXPECT_EQ(m.arena, matrices[0]->arena);
        EXPECT_EQ(matrices[k + 1]->stripe_starts[s], m.stripe_starts[s] + m.panels_per_stripe() * m.words_per_panel());
      }
    }
  }
}

TEST(Generation, SameSeedSameWeightsAndTokens) {
  ModelConfig c = preset("tiny");
  Model a(c), b(c);
  EXPECT_EQ(unpack(a.weights().layers[1].w_down), unpack(b.weights().layers[1].w_down));
  EXPECT_EQ(a.weights().token_embedding, b.weights().token_embedding);
  c.seed = 2;
  Model other(c);
  EXPECT_NE(unpack(a.weights().w_out), unpack(other.weights().w_out));

  // The generator is pinned: a change to the weight, prompt or token draws shows here.
  EXPECT_EQ(make_prompt(6, 64, 7), (std::vector<int>{23, 28, 2, 11, 26, 17}));
  EXPECT_FLOAT_EQ(a.weights().w_out.at(0, 5), 0.236155957f);
  KvCache cache(a.config(), 32);
  EXPECT_EQ(generate_with_cache(a, cache, make_prompt(8, 64, 7), 8),
            (std::vector<int>{10, 36, 43, 50, 55, 54, 39, 10}));
}

TEST(Generation, GroupedQueryShapesFollowTheConfig) {
  ModelConfig c = preset("tiny");  // 4 query heads over 2 kv heads of size 8
  Model model(c);
  EXPECT_EQ(c.head_dim(), 8);
  EXPECT_EQ(c.kv_dim(), 16);
  EXPECT_EQ(model.weights().layers[0].wk.n_out, c.kv_dim());
  EXPECT_EQ(model.weights().layers[0].wk.n_in, c.d_model);
  EXPECT_EQ(model.weights().layers[0].wq.n_out, c.d_model);
  KvCache cache(c, 10);
  EXPECT_EQ(cache.pool().bytes(), static_cast<size_t>(10 * model_size(c).kv_bytes_per_token));
  EXPECT_EQ(cache.block_table, std::vector<int>{0});
}

// Sequences in blocks of 4 positions of one pool, in scattered blocks, give the logits of the same sequence
// in its own contiguous cache bit for bit; a second sequence reads the first one's two blocks of a prompt
// prefix they share (computed once) and prefills only the rest. In every KV format.
void expect_block_table_addressing_equals_contiguous(const ModelConfig& config) {
  Model model(config);
  const int prompt_tokens = 10, answer_tokens = 8;
  const std::vector<int> prompt_a = make_prompt(prompt_tokens, config.vocab, 31);
  std::vector<int> prompt_b = make_prompt(prompt_tokens + 3, config.vocab, 32);
  std::copy_n(prompt_a.begin(), 8, prompt_b.begin());

  auto contiguous_logits = [&](const std::vector<int>& prompt) {
    KvCache cache(config, 32);
    std::vector<float> logits;
    generate_with_cache(model, cache, prompt, answer_tokens, &logits);
    return logits;
  };
  KvBlockPool pool(config, 12, 4);
  KvCache a(pool), b(pool);
  a.block_table = {7, 2, 9, 0, 5};
  b.block_table = {7, 2, 11, 3, 6, 1};  // the first two blocks are a's
  std::vector<float> logits_a, logits_b;
  generate_with_cache(model, a, prompt_a, answer_tokens, &logits_a);
  EXPECT_EQ(logits_a, contiguous_logits(prompt_a));

  b.length = 8;
  std::vector<DecodeSlot> slot{
      {&b, prefill(model, b, prompt_b.data() + 8, static_cast<int>(prompt_b.size()) - 8, 8, &logits_b)}};
  for (int k = 1; k < answer_tokens; ++k) decode_batch(model, slot, &logits_b);
  EXPECT_EQ(logits_b, contiguous_logits(prompt_b));
}

TEST(Generation, BlockTableAddressingEqualsContiguousBitForBit) {
  for (NumberFormat kv : {NumberFormat::f32, NumberFormat::bf16, NumberFormat::f16}) {
    SCOPED_TRACE(number_format_name(kv));
    expect_block_table_addressing_equals_contiguous(with_kv(preset("tiny"), kv));
  }
}

}  // namespace
}  // namespace kvlab
