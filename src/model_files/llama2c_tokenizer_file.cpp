#include "model_files/llama2c_tokenizer_file.h"

#include <cmath>
#include <string>

#include "common/input_error.h"
#include "model_files/byte_reader.h"

namespace kvlab {

Vocabulary read_llama2c_tokenizer(const uint8_t* data, size_t size, int vocab_size) {
  ByteReader in(data, size, "tokenizer");
  const int32_t max_length = in.i32("max_token_length");
  if (max_length < 1 || max_length > 65536)
    throw_range({in.path("max_token_length"), std::to_string(max_length), integers_from(1, 65536)},
                "must be an integer from 1 to 65536 (got " + std::to_string(max_length) + ")");
  // Every token takes at least 8 bytes (score and length): a bound before anything is allocated.
  in.require_fits(static_cast<uint64_t>(vocab_size), 8, "tokens");
  Vocabulary v;
  uint64_t total_bytes = 0;
  v.pieces.reserve(static_cast<size_t>(vocab_size));
  v.scores.reserve(static_cast<size_t>(vocab_size));
  for (int id = 0; id < vocab_size; ++id) {
    const std::string field = "tokens[" + std::to_string(id) + "]";
    const float score = in.f32(field + ".score");
    if (!std::isfinite(score)) in.fail(field + ".score", std::to_string(score), "must be a finite number");
    const int32_t length = in.i32(field + ".length");
    if (length < 0 || length > max_length)
      throw_range({in.path(field + ".length"), std::to_string(length), integers_from(0, max_length)},
                  "must be an integer from 0 to max_token_length " + std::to_string(max_length) + " (got " +
                      std::to_string(length) + ")");
    total_bytes += static_cast<uint64_t>(length);
    if (total_bytes > kMaxVocabularyBytes)
      in.fail(field + ".length", std::to_string(length),
              "brings the tokens' text past " + std::to_string(kMaxVocabularyBytes) + " bytes, the most kvlab reads");
    v.scores.push_back(score);
    v.pieces.push_back(in.text(static_cast<size_t>(length), field + ".piece"));
  }
  if (in.remaining() != 0)
    in.fail("size", std::to_string(size),
            "must end after the last of the checkpoint's " + std::to_string(vocab_size) + " tokens, at byte " +
                std::to_string(in.position()) + " (the file has " + std::to_string(size) + " bytes)");
  return v;
}

}  // namespace kvlab
