// Fuzzes option validation: the measure options (as the CLI and Embind's measure/modelInfo read them),
// the bench options and the roofline options (kvlab roofline, Embind's roofline). Reading must either succeed with sizes that fit or throw InputError; the
// memory and grid-time checks must keep every accepted configuration under their caps, and an accepted roofline must leave
// its minimum KV budget and give finite, non-negative step times.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "common/json_input.h"
#include "experiments/kernel_bench.h"
#include "measure/measure_options.h"
#include "roofline/roofline_options.h"
#include "roofline/table.h"

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
    if (o.prompt_tokens + o.answer_tokens - 1 > o.model.max_seq) std::abort();   // would overrun the cache
    if (kvlab::grid_sample_ms(o) > kvlab::kMaxGridSampleMs) std::abort();        // would time for too long
  } catch (const kvlab::InputError&) {
  }
  try {
    kvlab::experiments::read_bench_options(options);
  } catch (const kvlab::InputError&) {
  }
  try {
    const nlohmann::json table = kvlab::roofline::roofline(options);
    if (table["model"]["kv_budget_tokens"].get<long long>() < kvlab::roofline::kMinKvBudgetTokens) std::abort();
    for (const auto& row : table["decode"]["ms"])
      for (const auto& ms : row)
        if (!(ms.get<double>() >= 0 && ms.get<double>() < 1e12)) std::abort();  // NaN fails too
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
