#include "sim/timeline.h"

#include <algorithm>

namespace kvlab::sim {

std::vector<TimelineSpan> timeline(const std::vector<policy::RequestState>& requests, int max_requests) {
  std::vector<TimelineSpan> spans;
  size_t shown = std::min(requests.size(), static_cast<size_t>(std::max(max_requests, 0)));
  for (size_t i = 0; i < shown; ++i) {
    const policy::RequestState& state = requests[i];
    spans.push_back({i, state.slot, TimelinePhase::prefill, state.prefill_start_ms, state.first_token_ms});
    if (state.request.answer_tokens > 1)
      spans.push_back({i, state.slot, TimelinePhase::decode, state.first_token_ms, state.finish_ms});
  }
  return spans;
}

nlohmann::json timeline_json(const std::vector<TimelineSpan>& spans) {
  nlohmann::json entries = nlohmann::json::array();
  for (const TimelineSpan& span : spans)
    entries.push_back({{"request", span.request},
                       {"slot", span.slot},
                       {"phase", span.phase == TimelinePhase::prefill ? "prefill" : "decode"},
                       {"start_ms", span.start_ms},
                       {"end_ms", span.end_ms}});
  return entries;
}

}  // namespace kvlab::sim
