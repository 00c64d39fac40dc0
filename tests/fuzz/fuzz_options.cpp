// Fuzzes option validation: the measure options (as the CLI and Embind's measure/modelInfo read them)
// and the bench options. Reading must either succeed with sizes that fit or throw InputError; the
// memory check must keep every accepted configuration under its cap.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bench/kernel_bench.h"
#include "bench/measure_options.h"
#include "common/input_error.h"
#include "common/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json options;
  try {
    options = kvlab::json_input::parse(std::string(reinterpret_cast<const char*>(data), size), "options");
  } catch (const kvlab::InputError&) {
    return 0;
  }
  try {
    kvlab::MeasureOptions o = kvlab::read_measure_options(options);
    if (kvlab::measure_memory_bytes(o) > kvlab::kMaxMeasureBytes) std::abort();  // accepted past the cap
    if (o.prompt_tokens + o.answer_tokens - 1 > o.model.max_seq) std::abort();  // would overrun the cache
  } catch (const kvlab::InputError&) {
  }
  try {
    kvlab::read_bench_options(options);
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
