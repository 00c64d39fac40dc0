#pragma once
// Shared by the engine tests: the tiny model, hand-made workloads and a quick measurement.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/config.h"
#include "policy/request.h"

namespace kvlab::serve::testing {

ModelConfig tiny_model();

// Measure options for the tiny model with a grid that covers the test workloads, timed briefly.
nlohmann::json tiny_measure_options();

// Requests of every shape the policies treat apart: one-token answers, prompts of one token, a prompt
// longer than every answer, more requests than any batch.
std::vector<policy::Request> mixed_workload(double arrival_ms = 0);

// The explicit workload object of `requests`, as the simulator reads it.
nlohmann::json workload_json(const std::vector<policy::Request>& requests);

// The policies the tests run: both serial ones, and each batching one with a batch smaller than the
// workload, of one row, and larger than the workload.
std::vector<std::string> test_policies();

}  // namespace kvlab::serve::testing
