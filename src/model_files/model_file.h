#pragma once
// A model read from files: its weights, as float32 tensors still to be packed (pack_weights), and its
// tokenizer's vocabulary. The readers take bytes, not paths, so that the command line (a file it read)
// and the page (a fetched or dropped file) load a model the same way.
#include <cstddef>
#include <cstdint>

#include "model/weight_tensors.h"
#include "model_files/tokenizer.h"

namespace kvlab {

struct ModelFile {
  WeightTensors tensors;
  Vocabulary vocabulary;
};

// A llama2.c checkpoint and its tokenizer file (llama2c_checkpoint.h, llama2c_tokenizer_file.h).
ModelFile read_llama2c_files(const uint8_t* checkpoint, size_t checkpoint_size, const uint8_t* tokenizer,
                             size_t tokenizer_size);

}  // namespace kvlab
