// Fuzzes the workload reader (generated and explicit forms) and the policies over what it reads.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "common/json_input.h"
#include "sim/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json steps = nlohmann::json::parse(
      R"({"decode": {"rows": [1, 4, 16], "contexts": [8, 64], "ms": [[1, 1.5], [1.2, 2], [2, 4]]},
          "prefill": {"tokens": [1, 16, 128], "ms": [1, 3, 20]}})");
  try {
    nlohmann::json workload =
        kvlab::json_input::parse(std::string(reinterpret_cast<const char*>(data), size), "workload");
    // A generated workload may ask for up to a million requests: fine, but slow to fuzz. Keep it small.
    if (workload.is_object() && workload.contains("count") && workload["count"].is_number() &&
        workload["count"].get<double>() > 2000)
      return 0;
    kvlab::sim::simulate_json(steps, workload, {"serial-cache", "static:3", "continuous:2"});
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
