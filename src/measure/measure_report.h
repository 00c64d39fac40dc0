#pragma once
// The Part A report as text, in the spirit of the published lab's printout.
#include <string>

#include <nlohmann/json.hpp>

namespace kvlab {

// `result` is what measure() returns.
std::string format_measure_report(const nlohmann::json& result);

// The model description's instruction set as the reports print it: "fma3+avx2, KVLAB_ARCH=native"
// natively, "wasm simd128" in wasm (where KVLAB_ARCH does not apply).
std::string instruction_set_text(const nlohmann::json& model);

// The model description's name as the reports print it: the preset's ("small"), or a file model's
// with where it came from ("stories15M, read from files").
std::string model_name_text(const nlohmann::json& model);

}  // namespace kvlab
