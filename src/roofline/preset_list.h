#pragma once
// What the roofline model offers, as JSON for the page's hardware switch (Embind rooflinePresets()), so that
// the page lists the C++ presets instead of repeating them.
#include <nlohmann/json.hpp>

namespace kvlab::roofline {

// {gpus: [{name, description, memory_bytes, memory_bytes_per_s, link}], models: [{name, description,
// parameters, n_kv_heads}], weights: ["bf16", ...], kv: ["bf16", ...], max_tp}
nlohmann::json roofline_presets_json();

}  // namespace kvlab::roofline
