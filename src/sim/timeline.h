#pragma once
// The slot timeline for plotting: which slot each of the first requests occupied, from when to when,
// with the prefill and decode phases apart. Built from the per-request times, so nothing per step is kept.
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::sim {

// [{request, slot, phase: "prefill" | "decode", start_ms, end_ms}] for the first `max_requests` requests in
// workload order: the prefill from its start to the first token, the decode phase (answers of more than
// one token) from the first token to the finish. Serial policies use slot 0; static the row in its batch.
nlohmann::json timeline(const std::vector<policy::RequestState>& requests, int max_requests);

}  // namespace kvlab::sim
