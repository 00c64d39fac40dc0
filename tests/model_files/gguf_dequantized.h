#pragma once
// The weights a GGUF file holds, widened to float32 by the tests themselves: each tensor's blocks through
// dequantize_blocks (model/block_format.h), in the file's order (wq and wk for adjacent pairs), not
// through the GGUF reader. Written back as an F32 file (gguf_bytes), they are the reference a model that
// computes on the file's quantized blocks must agree with.
#include <cstdint>
#include <string>

#include "model_file_writers.h"

namespace kvlab::test {

// The tensors of `gguf` (a file gguf_bytes wrote for a model of `config`), F32 or a block format.
FileWeights dequantized_weights(const std::string& gguf, const ModelConfig& config);

}  // namespace kvlab::test
