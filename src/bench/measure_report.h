#pragma once
// The Part A report as text, in the spirit of the published lab's printout.
#include <string>

#include <nlohmann/json.hpp>

namespace kvlab {

// `result` is what measure() returns.
std::string format_measure_report(const nlohmann::json& result);

}  // namespace kvlab
