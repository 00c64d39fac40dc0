#include "model/generate.h"

#include "common/rng.h"
#include "model/kernels.h"

namespace kvlab {

std::vector<int> make_prompt(int n_tokens, int vocab, uint64_t seed) {
  Rng rng(seed);
  std::vector<int> prompt(static_cast<size_t>(n_tokens));
  for (int& token : prompt) token = static_cast<int>(rng.uniform_int(0, vocab - 1));
  return prompt;
}

int prefill(Model& model, KvCache& cache, const int* tokens, int n_tokens, int start_position,
            std::vector<float>* logits_out) {
  std::vector<Row> rows(static_cast<size_t>(n_tokens));
  for (int i = 0; i < n_tokens; ++i) rows[i] = Row{tokens[i], &cache, start_position + i, i == n_tokens - 1};
  if (!logits_out) {
    std::vector<int> token;
    model.greedy_tokens(rows, token);
    return token[0];
  }
  const int vocab = model.config().vocab;
  const float* logits = model.forward(rows);
  logits_out->insert(logits_out->end(), logits, logits + vocab);
  return kernels::argmax(logits, vocab);
}

std::vector<int> generate_without_cache(Model& model, KvCache& work_cache, const std::vector<int>& prompt, int n_answer,
                                        std::vector<float>* logits_out, const std::function<void(int)>& on_token) {
  std::vector<int> sequence = prompt;
  std::vector<int> answer;
  for (int k = 0; k < n_answer; ++k) {
    work_cache.length = 0;  // nothing is kept from the previous token
    int token = prefill(model, work_cache, sequence.data(), static_cast<int>(sequence.size()), 0, logits_out);
    answer.push_back(token);
    sequence.push_back(token);
    if (on_token) on_token(k + 1);
  }
  return answer;
}

std::vector<int> generate_with_cache(Model& model, KvCache& cache, const std::vector<int>& prompt, int n_answer,
                                     std::vector<float>* logits_out, const std::function<void(int)>& on_token) {
  cache.length = 0;
  std::vector<int> answer;
  answer.push_back(prefill(model, cache, prompt.data(), static_cast<int>(prompt.size()), 0, logits_out));
  if (on_token) on_token(1);
  std::vector<DecodeSlot> slot{{&cache, answer.back()}};
  while (static_cast<int>(answer.size()) < n_answer) {
    decode_batch(model, slot, logits_out);
    answer.push_back(slot[0].next_input);
    if (on_token) on_token(static_cast<int>(answer.size()));
  }
  return answer;
}

void decode_batch(Model& model, std::vector<DecodeSlot>& slots, std::vector<float>* logits_out) {
  std::vector<Row> rows(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    rows[i] = Row{slots[i].next_input, slots[i].cache, slots[i].cache->length, true};
  if (!logits_out) {
    std::vector<int> tokens;
    model.greedy_tokens(rows, tokens);
    for (size_t i = 0; i < slots.size(); ++i) slots[i].next_input = tokens[i];
    return;
  }
  const int vocab = model.config().vocab;
  const float* logits = model.forward(rows);
  logits_out->insert(logits_out->end(), logits, logits + slots.size() * vocab);
  for (size_t i = 0; i < slots.size(); ++i) slots[i].next_input = kernels::argmax(logits + i * vocab, vocab);
}

}  // namespace kvlab
