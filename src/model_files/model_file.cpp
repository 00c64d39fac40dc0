#include "model_files/model_file.h"

#include "model_files/llama2c_checkpoint.h"
#include "model_files/llama2c_tokenizer_file.h"

namespace kvlab {

ModelFile read_llama2c_files(const uint8_t* checkpoint, size_t checkpoint_size, const uint8_t* tokenizer,
                             size_t tokenizer_size) {
  ModelFile file;
  file.tensors = read_llama2c_checkpoint(checkpoint, checkpoint_size);
  file.vocabulary = read_llama2c_tokenizer(tokenizer, tokenizer_size, file.tensors.config.vocab);
  return file;
}

}  // namespace kvlab
