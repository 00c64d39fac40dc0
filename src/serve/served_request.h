#pragma once
// One request of a replayed workload as the engine serves it: its prompt's token ids, the answer it
// generates, and its times. The times are the server's bookkeeping (policy::ServerState, shared with the
// simulator), copied in at the end of the run, so that the real run's metrics and timeline come from the
// very code that computes the simulated ones (sim/metrics.h).
#include <vector>

#include "policy/request.h"

namespace kvlab::serve {

struct ServedRequest {
  policy::RequestState state;   // arrival, p, n; then slot, prefill start, first token and finish, in run ms
  std::vector<int> prompt;      // p token ids, drawn before the run starts
  std::vector<int> answer;      // greedy tokens so far; capacity n is reserved before the run starts
  long long prefill_step = -1;  // index of the forward pass that prefilled it (its admission)
  long long finish_step = -1;   // index of the forward pass that gave its last token
};

}  // namespace kvlab::serve
