// Fuzzes the GGUF reader and its Llama model: any input must either load and run or throw InputError;
// anything else (a crash, another exception, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>

#include "common/input_error.h"
#include "fuzz_model_run.h"
#include "model_files/gguf_llama.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kvlab::fuzz::run_model_file(kvlab::read_gguf_llama(kvlab::ByteBuffer(data, data + size)));
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
