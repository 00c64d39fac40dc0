#pragma once
// One request of a workload, and its progress through a simulated server.

namespace kvlab::sim {

struct Request {
  double arrival_ms = 0;
  int prompt_tokens = 1;
  int answer_tokens = 1;  // n >= 1; the first comes out of the prefill
};

// What every policy tracks about a request: tokens so far and the times the metrics and the timeline
// are made of. Policies change it only through ServerState, so the bookkeeping is the same for all.
struct RequestState {
  Request request;
  int answer_tokens_out = 0;
  int slot = -1;                 // the batch row or slot it occupied (0 for serial policies)
  double prefill_start_ms = 0;
  double first_token_ms = 0;
  double finish_ms = 0;

  bool finished() const { return answer_tokens_out == request.answer_tokens; }
  // Context of its next decode step: after token k (k = answer_tokens_out) it attends over p + k positions.
  int next_context() const { return request.prompt_tokens + answer_tokens_out; }
};

}  // namespace kvlab::sim
