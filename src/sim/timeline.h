#pragma once
// The slot timeline for plotting: which slot each of the first requests occupied, from when to when,
// with the prefill and decode phases apart. Built from the per-request times, so nothing per step is kept.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::sim {

enum class TimelinePhase { prefill, decode };

// One phase of one request in its slot.
struct TimelineSpan {
  size_t request = 0;  // workload index
  int slot = 0;
  TimelinePhase phase = TimelinePhase::prefill;
  double start_ms = 0;
  double end_ms = 0;
};

// The first `max_requests` requests' spans in workload order: the prefill from its start to the first
// token, the decode phase (answers of more than one token) from the first token to the finish. Serial
// policies use slot 0; static the row in its batch.
std::vector<TimelineSpan> timeline(const std::vector<policy::RequestState>& requests, int max_requests);

// [{request, slot, phase: "prefill" | "decode", start_ms, end_ms}]
nlohmann::json timeline_json(const std::vector<TimelineSpan>& spans);

}  // namespace kvlab::sim
