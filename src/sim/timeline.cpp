#include "sim/timeline.h"

#include <algorithm>

namespace kvlab::sim {

nlohmann::json timeline(const std::vector<policy::RequestState>& requests, int max_requests) {
  nlohmann::json entries = nlohmann::json::array();
  size_t shown = std::min(requests.size(), static_cast<size_t>(std::max(max_requests, 0)));
  auto add = [&](size_t index, const char* phase, double start_ms, double end_ms) {
    entries.push_back({{"request", index},
                       {"slot", requests[index].slot},
                       {"phase", phase},
                       {"start_ms", start_ms},
                       {"end_ms", end_ms}});
  };
  for (size_t i = 0; i < shown; ++i) {
    const policy::RequestState& state = requests[i];
    add(i, "prefill", state.prefill_start_ms, state.first_token_ms);
    if (state.request.answer_tokens > 1) add(i, "decode", state.first_token_ms, state.finish_ms);
  }
  return entries;
}

}  // namespace kvlab::sim
