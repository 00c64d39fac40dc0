#include "reference_forward.h"

#include <algorithm>
#include <cmath>

namespace kvlab::test {

std::vector<int> llama2c_greedy(const FileWeights& w, std::vector<int> tokens, int n_tokens, float rope_theta,
                                float rms_epsilon) {
  const ModelConfig& c = w.config;
  const int d = c.d_model, kv_dim = c.kv_dim(), hs = c.head_dim(), ff = c.d_ff;
  auto matvec = [](const std::vector<float>& m, const std::vector<float>& x, int n_out) {
    std::vector<float> out(static_cast<size_t>(n_out), 0.0f);
    for (int o = 0; o < n_out; ++o)
      for (size_t i = 0; i < x.size(); ++i) out[o] += m[o * x.size() + i] * x[i];
    return out;
  };
  auto rmsnorm = [&](const std::vector<float>& x, const std::vector<float>& weight) {
    float ss = 0.0f;
    for (float v : x) ss += v * v;
    const float scale = 1.0f / std::sqrt(ss / static_cast<float>(x.size()) + rms_epsilon);
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = weight[i] * (scale * x[i]);
    return out;
  };
  std::vector<std::vector<std::vector<float>>> keys(c.n_layers), values(c.n_layers);
  std::vector<int> answer;
  for (size_t pos = 0; answer.size() < static_cast<size_t>(n_tokens); ++pos) {
    std::vector<float> x(w.token_embedding.begin() + tokens[pos] * d,
                         w.token_embedding.begin() + (tokens[pos] + 1) * d);
    for (int l = 0; l < c.n_layers; ++l) {
      std::vector<float> xb = rmsnorm(x, w.attn_norm[l]);
      std::vector<float> q = matvec(w.wq[l], xb, d), k = matvec(w.wk[l], xb, kv_dim), v = matvec(w.wv[l], xb, kv_dim);
      if (!w.bq.empty()) {
        for (int i = 0; i < d; ++i) q[i] += w.bq[l][i];
        for (int i = 0; i < kv_dim; ++i) {
          k[i] += w.bk[l][i];
          v[i] += w.bv[l][i];
        }
      }
      for (int i = 0; i < d; i += 2) {
        const float freq = 1.0f / std::pow(rope_theta, static_cast<float>(i % hs) / static_cast<float>(hs));
        const float fcr = std::cos(pos * freq), fci = std::sin(pos * freq);
        for (std::vector<float>* vec : {&q, &k}) {
          if (vec == &k && i >= kv_dim) continue;
          const float v0 = (*vec)[i], v1 = (*vec)[i + 1];
          (*vec)[i] = v0 * fcr - v1 * fci;
          (*vec)[i + 1] = v0 * fci + v1 * fcr;
        }
      }
      keys[l].push_back(k);
      values[l].push_back(v);
      std::vector<float> attn(static_cast<size_t>(d), 0.0f);
      for (int h = 0; h < c.n_heads; ++h) {
        const int kv_head = h / (c.n_heads / c.n_kv_heads);
        std::vector<float> scores(pos + 1);
        float largest = -1e30f, sum = 0.0f;
        for (size_t t = 0; t <= pos; ++t) {
          float s = 0.0f;
          for (int i = 0; i < hs; ++i) s += q[h * hs + i] * keys[l][t][kv_head * hs + i];
          scores[t] = s / std::sqrt(static_cast<float>(hs));
          largest = std::max(largest, scores[t]);
        }
        for (float& s : scores) sum += (s = std::exp(s - largest));
        for (size_t t = 0; t <= pos; ++t)
          for (int i = 0; i < hs; ++i) attn[h * hs + i] += scores[t] / sum * values[l][t][kv_head * hs + i];
      }
      std::vector<float> o = matvec(w.wo[l], attn, d);
      for (int i = 0; i < d; ++i) x[i] += o[i];
      xb = rmsnorm(x, w.ffn_norm[l]);
      std::vector<float> gate = matvec(w.w1[l], xb, ff), up = matvec(w.w3[l], xb, ff);
      for (int i = 0; i < ff; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
      std::vector<float> down = matvec(w.w2[l], gate, d);
      for (int i = 0; i < d; ++i) x[i] += down[i];
    }
    if (pos + 1 < tokens.size()) continue;
    const std::vector<float> logits =
        matvec(w.w_out.empty() ? w.token_embedding : w.w_out, rmsnorm(x, w.final_norm), c.vocab);
    const int next = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    answer.push_back(next);
    tokens.push_back(next);
  }
  return answer;
}

}  // namespace kvlab::test
