// Fuzzes the workload reader (generated and explicit forms) and the policies over what it reads. An
// accepted workload must keep within the documented caps (requests, tokens per prompt and answer, answer
// tokens in all, finite arrivals), and every figure simulated from it must be finite and non-negative;
// the KV policies run in one-token blocks, where the bookkeeping estimate is largest.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "common/json_input.h"
#include "sim/simulate.h"
#include "sim/workload.h"

namespace {

// Aborts on a number that is not finite or is negative, anywhere in a result (a NaN fails the comparison).
void check_figures(const nlohmann::json& value) {
  if (value.is_number()) {
    if (!(value.get<double>() >= 0 && std::isfinite(value.get<double>()))) std::abort();
  } else if (value.is_structured()) {
    for (const auto& item : value) check_figures(item);
  }
}

// Simulating an accepted workload takes about one step per answer token under each policy; past this
// (the cap is 10^8) a fuzz input would take seconds, so only the reader's invariants are checked.
constexpr long long kMaxFuzzedAnswerTokens = 200'000;

}  // namespace

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
    const std::vector<kvlab::policy::Request> requests = kvlab::sim::read_workload(workload);
    if (requests.empty() || static_cast<long long>(requests.size()) > kvlab::sim::kMaxRequests) std::abort();
    long long answer_tokens = 0;
    for (const auto& r : requests) {
      if (r.prompt_tokens < 1 || r.prompt_tokens > kvlab::sim::kMaxTokens) std::abort();
      if (r.answer_tokens < 1 || r.answer_tokens > kvlab::sim::kMaxTokens) std::abort();
      if (!(r.arrival_ms >= 0 && std::isfinite(r.arrival_ms))) std::abort();
      answer_tokens += r.answer_tokens;
    }
    if (answer_tokens > kvlab::sim::kMaxTotalAnswerTokens) std::abort();  // accepted past the cap
    if (answer_tokens > kMaxFuzzedAnswerTokens) return 0;
    kvlab::sim::SimulateOptions options;
    options.block_tokens = 1;
    check_figures(
        kvlab::sim::simulate_json(steps, workload, {"serial-cache", "static:3", "continuous:2", "paged:4"}, options));
  } catch (const kvlab::InputError&) {
  }
  return 0;
}
