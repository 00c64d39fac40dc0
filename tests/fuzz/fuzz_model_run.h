#pragma once
// What both model-file fuzz targets do with a file that reads: pack it, in both weight formats, and
// generate a couple of tokens, so that whatever a reader lets through must also run.
#include "model_files/model_file.h"
#include "model_files/text_generation.h"

namespace kvlab::fuzz {

inline void run_model_file(const ModelFile& file) {
  for (NumberFormat format : {NumberFormat::f32, NumberFormat::bf16}) {
    ModelFile copy = file;
    copy.tensors.config.weights = format;
    Tokenizer tokenizer(std::move(copy.vocabulary));
    Model model(pack_weights(std::move(copy.tensors)));
    const int n_tokens = std::min(2, model.config().max_seq - 3);
    if (n_tokens >= 1) generate_text(model, tokenizer, "a b", n_tokens);
  }
}

}  // namespace kvlab::fuzz
