#include "scalar_reference.h"

#include <cmath>
#include <functional>
#include <utility>

#include "model/kernels.h"

namespace kvlab::test {

namespace {

// The forward pass over `tokens`, and from the last of them on, over the token `next` picks from each
// position's logits, until it has picked `n_tokens`. Returns what it picked.
std::vector<int> scalar_answer(const Weights& w, std::vector<int> tokens, int n_tokens,
                               const std::function<int(const std::vector<float>& logits)>& next) {
  namespace k = kernels::scalar;
  const ModelConfig& c = w.config;
  const int d = c.d_model, kv_dim = c.kv_dim(), hs = c.head_dim(), half = hs / 2, group = c.n_heads / c.n_kv_heads;
  const auto product = [](const PackedMatrix& m, const std::vector<float>& x) {
    std::vector<float> out(static_cast<size_t>(m.n_out));
    k::matmul(out.data(), x.data(), m, 1, nullptr);
    return out;
  };
  const auto norm = [&c, d](const std::vector<float>& x, const FloatBuffer& weight) {
    std::vector<float> out(static_cast<size_t>(d));
    k::rmsnorm(out.data(), x.data(), weight.data(), d, c.rms_epsilon);
    return out;
  };
  std::vector<std::vector<float>> keys(c.n_layers), values(c.n_layers);  // [layer][position * kv_dim]
  std::vector<int> answer;
  for (size_t pos = 0; answer.size() < static_cast<size_t>(n_tokens); ++pos) {
    std::vector<float> x(static_cast<size_t>(d));
    embed(w, tokens[pos], x.data());
    const float* cos = &w.rope_cos[pos * half];
    const float* sin = &w.rope_sin[pos * half];
    for (int l = 0; l < c.n_layers; ++l) {
      const LayerWeights& layer = w.layers[l];
      std::vector<float> xb = norm(x, layer.attn_norm);
      std::vector<float> q = product(layer.wq, xb), key = product(layer.wk, xb), value = product(layer.wv, xb);
      for (auto [out, bias] : {std::pair{&q, &layer.bq}, std::pair{&key, &layer.bk}, std::pair{&value, &layer.bv}})
        if (!bias->empty()) k::add(out->data(), bias->data(), static_cast<int>(out->size()));
      k::rope(q.data(), c.n_heads, hs, cos, sin);
      k::rope(key.data(), c.n_kv_heads, hs, cos, sin);
      keys[l].insert(keys[l].end(), key.begin(), key.end());
      values[l].insert(values[l].end(), value.begin(), value.end());
      std::vector<float> attn(static_cast<size_t>(d), 0.0f), scores(pos + 1);
      for (int h = 0; h < c.n_heads; ++h) {
        const int kv_head = h / group;
        for (size_t t = 0; t <= pos; ++t)
          scores[t] = k::dot(&q[h * hs], &keys[l][t * kv_dim + kv_head * hs], hs) / std::sqrt(static_cast<float>(hs));
        k::softmax(scores.data(), static_cast<int>(pos + 1));
        for (size_t t = 0; t <= pos; ++t) k::axpy(&attn[h * hs], scores[t], &values[l][t * kv_dim + kv_head * hs], hs);
      }
      k::add(x.data(), product(layer.wo, attn).data(), d);
      xb = norm(x, layer.ffn_norm);
      std::vector<float> gate = product(layer.w_gate, xb);
      k::swiglu(gate.data(), product(layer.w_up, xb).data(), c.d_ff);
      k::add(x.data(), product(layer.w_down, gate).data(), d);
    }
    if (pos + 1 < tokens.size()) continue;
    const std::vector<float> logits = product(w.w_out, norm(x, w.final_norm));
    answer.push_back(next(logits));
    tokens.push_back(answer.back());
  }
  return answer;
}

}  // namespace

std::vector<int> scalar_greedy(const Weights& w, std::vector<int> prompt, int n_tokens) {
  return scalar_answer(w, std::move(prompt), n_tokens, [&w](const std::vector<float>& logits) {
    return kernels::argmax(logits.data(), w.config.vocab);
  });
}

std::vector<float> scalar_shortfalls(const Weights& w, std::vector<int> prompt, const std::vector<int>& answer) {
  std::vector<float> shortfalls;
  scalar_answer(w, std::move(prompt), static_cast<int>(answer.size()), [&](const std::vector<float>& logits) {
    const int chosen = answer[shortfalls.size()];
    shortfalls.push_back(logits[kernels::argmax(logits.data(), w.config.vocab)] - logits[chosen]);
    return chosen;
  });
  return shortfalls;
}

}  // namespace kvlab::test
