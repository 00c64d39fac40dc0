#pragma once
// A figure that may be undefined (a rate over no time, a TPOT of one-token answers) is an optional in
// the typed results and null in their JSON.
#include <optional>

#include <nlohmann/json.hpp>

namespace kvlab {

template <class T>
nlohmann::json json_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace kvlab
