#pragma once
// The modeled step-time table of a deployment, in exactly the shape `measure` produces and `simulate`
// consumes (docs/simulator.md): decode over rows x contexts, prefill over token counts, and a "model"
// object that says it is modeled, what it models, and its KV memory (kv_bytes_per_token,
// kv_budget_tokens) for the KV-memory policies; and the same table as text for the CLI.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/deployment.h"

namespace kvlab::roofline {

const std::vector<int>& table_decode_rows();      // 1, 2, 4, ..., 256
const std::vector<int>& table_decode_contexts();  // 16 .. 32,768
const std::vector<int>& table_prefill_tokens();   // 1 .. 32,768

// Rows from which one decode step's largest matrix product (gate and up) turns compute-bound.
int crossover_rows(const Deployment& d, int context);

nlohmann::json build_step_table(const Deployment& d);

// read_roofline_options, then build_step_table: what the CLI and Embind call.
nlohmann::json roofline(const nlohmann::json& options);

// What it models, its KV memory, and decode and prefill times; `table` is what build_step_table() returns.
std::string format_roofline_report(const nlohmann::json& table);

}  // namespace kvlab::roofline
