// Fuzzes the llama2.c readers: the input is a uint32 n (little-endian), then a checkpoint of n bytes
// (fewer if the input is shorter), then its tokenizer file. Any input must either load and run or throw
// InputError; anything else (a crash, another exception, a sanitizer report) is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/input_error.h"
#include "fuzz_model_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t n =
      std::min<size_t>(data[0] | data[1] << 8 | data[2] << 16 | static_cast<size_t>(data[3]) << 24, size - 4);
  try {
    kvlab::fuzz::run_model_file(kvlab::read_llama2c_files(data + 4, n, data + 4 + n, size - 4 - n));
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
