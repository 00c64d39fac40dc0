#pragma once
// Reads a llama2.c tokenizer file (tokenizer.bin, written by llama2.c's tokenizer.py): an int32
// max_token_length, then for each of the model's vocab_size tokens a float32 score, an int32 length and
// that many bytes of the piece (spaces already ' ', BOS and EOS written as "\n<s>\n" and "\n</s>\n").
// The vocabulary size is the checkpoint's, not the file's; the file must end after the last token.
#include <cstddef>
#include <cstdint>

#include "model_files/tokenizer.h"

namespace kvlab {

// Throws InputError naming the field ("tokenizer.tokens[17].length") for a file that does not hold
// exactly `vocab_size` tokens.
Vocabulary read_llama2c_tokenizer(const uint8_t* data, size_t size, int vocab_size);

}  // namespace kvlab
