#include "serve_test_support.h"

namespace kvlab::serve::testing {

ModelConfig tiny_model() { return find_preset("tiny", "preset").config; }

nlohmann::json tiny_measure_options() {
  return {{"preset", "tiny"},
          {"runs", 1},
          {"answer_tokens", 4},
          {"decode_rows", {1, 2, 4, 8}},
          {"decode_contexts", {2, 8, 32}},
          {"prefill_tokens", {1, 4, 16, 32}},
          {"min_sample_ms", 0.2},
          {"samples", 3}};
}

std::vector<policy::Request> mixed_workload(double arrival_ms) {
  // {arrival_ms, prompt, answer}
  return {{arrival_ms, 5, 7}, {arrival_ms, 1, 1}, {arrival_ms, 12, 3}, {arrival_ms, 3, 10}, {arrival_ms, 9, 1},
          {arrival_ms, 7, 6}, {arrival_ms, 1, 4}, {arrival_ms, 16, 2}, {arrival_ms, 4, 9}};
}

nlohmann::json workload_json(const std::vector<policy::Request>& requests) {
  nlohmann::json list = nlohmann::json::array();
  for (const policy::Request& request : requests)
    list.push_back(
        {{"arrival_ms", request.arrival_ms}, {"prompt", request.prompt_tokens}, {"answer", request.answer_tokens}});
  return {{"requests", list}};
}

std::vector<std::string> test_policies() {
  return {"serial-nocache", "serial-cache", "static:4",     "static:1",
          "static:16",      "continuous:4", "continuous:1", "continuous:16"};
}

}  // namespace kvlab::serve::testing
