// Fuzzes the step-table reader and every policy's use of the table: any input must either simulate
// or throw InputError; anything else (a crash, another exception, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "common/json_input.h"
#include "sim/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json workload = nlohmann::json::parse(
      R"({"requests": [{"arrival_ms": 0, "prompt": 3, "answer": 4}, {"arrival_ms": 1, "prompt": 40, "answer": 1},
                       {"arrival_ms": 1, "prompt": 7, "answer": 9}, {"arrival_ms": 500, "prompt": 200, "answer": 30}]})");
  try {
    nlohmann::json steps = kvlab::json_input::parse(std::string(reinterpret_cast<const char*>(data), size), "steps");
    kvlab::sim::simulate_json(steps, workload, {"serial-nocache", "serial-cache", "static:2", "continuous:3"});
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
