#pragma once
// A modeled step table as text: what it models, its KV memory, and decode and prefill times.
#include <string>

#include <nlohmann/json.hpp>

namespace kvlab::roofline {

// `table` is what build_step_table() returns.
std::string format_roofline_report(const nlohmann::json& table);

}  // namespace kvlab::roofline
