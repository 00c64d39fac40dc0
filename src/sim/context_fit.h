#pragma once
// Requests checked against the context of the model a step table was measured on (steps.model.max_seq,
// which measure writes): a request of p prompt tokens and n answer tokens holds p + n - 1 positions (its
// last token is never fed back). A longer one could not run on that model, and its figures would be priced
// far past every measured point (a TTFT of hours, 0 tokens/s), so it is refused before anything runs.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::sim {

// Throws InputError when a request of `requests` holds more than `max_seq` positions (nothing without a
// max_seq). `requests` are those of `workload` (read_workload()), at `workload_path`. The error names the
// field to change with its range: for an explicit workload the request's answer (or its prompt, when the
// prompt alone is too long), for a generated one the upper end of its answer (or prompt) lengths.
void check_requests_fit(std::optional<int> max_seq, const std::vector<policy::Request>& requests,
                        const nlohmann::json& workload, const std::string& workload_path);

}  // namespace kvlab::sim
