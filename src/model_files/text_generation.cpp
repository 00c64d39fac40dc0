#include "model_files/text_generation.h"

#include <algorithm>

#include "common/input_error.h"
#include "model/generate.h"
#include "model/kv_cache.h"

namespace kvlab {

std::vector<int> text_tokens(const std::vector<int>& answer, const Vocabulary& vocabulary) {
  const auto end = std::find_if(answer.begin(), answer.end(),
                                [&](int token) { return token == vocabulary.bos || token == vocabulary.eos; });
  return {answer.begin(), end};
}

TextGeneration generate_text(Model& model, const Tokenizer& tokenizer, const std::string& prompt, int n_tokens) {
  TextGeneration out;
  out.prompt_tokens = tokenizer.encode(prompt);
  const int prompt_length = static_cast<int>(out.prompt_tokens.size());
  const int max_seq = model.config().max_seq;
  if (prompt_length >= max_seq)
    throw_range({"prompt", "", {}}, "is " + std::to_string(prompt_length) + " tokens; the model holds " +
                                        std::to_string(max_seq) + " positions, the answer included");
  const int most = max_seq - prompt_length;
  if (n_tokens < 1 || n_tokens > most)
    throw_range({"tokens", std::to_string(n_tokens), integers_from(1, most)},
                "must be an integer from 1 to " + std::to_string(most) + " (the model's " + std::to_string(max_seq) +
                    " positions less the prompt's " + std::to_string(prompt_length) + " tokens; got " +
                    std::to_string(n_tokens) + ")");
  const Vocabulary& v = tokenizer.vocabulary();
  KvCache cache(model.config(), prompt_length + n_tokens);
  std::vector<DecodeSlot> slot{{&cache, prefill(model, cache, out.prompt_tokens.data(), prompt_length, 0)}};
  while (slot[0].next_input != v.bos && slot[0].next_input != v.eos) {
    out.tokens.push_back(slot[0].next_input);
    if (static_cast<int>(out.tokens.size()) == n_tokens) break;
    decode_batch(model, slot);
  }
  out.text = tokenizer.decode(out.tokens, out.prompt_tokens.back());
  return out;
}

}  // namespace kvlab
