#pragma once
// Text in, text out, on a model read from a file: the prompt encoded, prefilled, then greedy decode
// steps (argmax, as llama2.c with temperature 0) through the KV cache.
#include <string>
#include <vector>

#include "model/model.h"
#include "model_files/tokenizer.h"

namespace kvlab {

struct TextGeneration {
  std::vector<int> prompt_tokens;  // the encoded prompt, BOS first
  std::vector<int> tokens;         // the generated ids; a BOS or EOS ends the text and is not among them
  std::string text;                // the generated ids decoded, after the prompt's last token
};

// The tokens of a greedy answer that are text, as generate_text() keeps them: those before its first BOS
// or EOS.
std::vector<int> text_tokens(const std::vector<int>& answer, const Vocabulary& vocabulary);

// Generates up to n_tokens tokens after `prompt`. Throws InputError naming "tokens" unless
// 1 <= n_tokens and the prompt's tokens plus n_tokens fit in the model's max_seq positions.
TextGeneration generate_text(Model& model, const Tokenizer& tokenizer, const std::string& prompt, int n_tokens);

}  // namespace kvlab
