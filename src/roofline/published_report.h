#pragma once
// The published figures against the model, as JSON (Embind, the page) and as text (kvlab roofline --checks).
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/published_checks.h"

namespace kvlab::roofline {

// {efficiencies: {bandwidth, compute, fitted_on: [ids]}, figures: [{id, source, conditions, gpu, model, weights,
// kv, tp, unit, published, modeled, error_pct, fit}]}
nlohmann::json published_checks_json(const Efficiencies& efficiencies);

std::string format_published_checks(const nlohmann::json& checks);

}  // namespace kvlab::roofline
