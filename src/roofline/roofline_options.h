#pragma once
// The options of a roofline table, read from JSON (Embind) or filled from flags (CLI), and checked: known
// names, a tensor-parallel size that splits the heads, and a combination whose weights leave room for a
// KV cache of at least kMinKvBudgetTokens. Every error names its field; a combination that does not fit
// says what would. And the list of what the options take, for the page's hardware switch.
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/deployment.h"
#include "roofline/published_figures.h"

namespace kvlab::roofline {

// The longest decode context of the table: a server must hold at least one request that long.
constexpr long long kMinKvBudgetTokens = 8192;

// {gpu, model, weights = "bf16", kv = "bf16", tp = 1, bw_efficiency, compute_efficiency, step_overhead_ms}
Deployment read_roofline_options(const nlohmann::json& options, const std::string& path = "options");

// Only {bw_efficiency, compute_efficiency} (defaults: the fitted ones), for pricing the published figures.
Efficiencies read_efficiencies(const nlohmann::json& options, const std::string& path = "options");

// Throws the "does not fit" error, naming path.tp and listing the smallest TP at which each weight format
// fits, unless the deployment leaves kMinKvBudgetTokens of KV cache.
void check_fits(const Deployment& d, const std::string& path);

// What the options take, as JSON for the page's hardware switch (Embind rooflinePresets()), so that the page
// lists the C++ presets instead of repeating them: {gpus: [{name, description, memory_bytes,
// memory_bytes_per_s, link}], models: [{name, description, parameters, n_layers, n_kv_heads, head_dim}],
// weights: ["bf16", ...], kv: ["bf16", ...], max_tp}
nlohmann::json roofline_presets_json();

}  // namespace kvlab::roofline
