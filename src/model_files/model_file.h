#pragma once
// A model read from files: its weights, as float32 tensors still to be packed (pack_weights), and its
// tokenizer's vocabulary. The readers take bytes, not paths, so that the command line (a file it read)
// and the page (a fetched or dropped file) load a model the same way.
#include <cstddef>
#include <cstdint>

#include "model/weight_tensors.h"
#include "model_files/tokenizer.h"

namespace kvlab {

// The largest model file kvlab reads: weights within kMaxWeightBytes (config.h), and room for the
// metadata and vocabulary (Qwen2's 151,936 tokens and their merges take about 10 MB). The command line
// and the page refuse a larger file by its size, before reading it.
constexpr int64_t kMaxModelFileBytes = kMaxWeightBytes + (int64_t{64} << 20);

struct ModelFile {
  WeightTensors tensors;
  Vocabulary vocabulary;
};

// A llama2.c checkpoint and its tokenizer file (llama2c_checkpoint.h, llama2c_tokenizer_file.h).
ModelFile read_llama2c_files(const uint8_t* checkpoint, size_t checkpoint_size, const uint8_t* tokenizer,
                             size_t tokenizer_size);

}  // namespace kvlab
