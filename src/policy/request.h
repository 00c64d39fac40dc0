#pragma once
// One request of a workload, and its progress through a server (priced or real).
#include <algorithm>

namespace kvlab::policy {

struct Request {
  double arrival_ms = 0;
  int prompt_tokens = 1;
  int answer_tokens = 1;  // n >= 1; the first comes out of the prefill
  // What the prompt shares with other requests, for prefix reuse: its first system_prompt_tokens tokens are
  // the workload's system prompt (the same text in every request that has one), and requests of one
  // conversation (>= 0) are turns of a chat, each prompt beginning with an earlier turn's prompt and answer.
  // -1: a conversation of its own.
  int system_prompt_tokens = 0;
  int conversation = -1;
  // Which text of the workload's story prompts (sim/workload.h) its prompt is, so that an engine feeds
  // that text's tokens; -1: its prompt is not a text.
  int story = -1;

  // Whether its prompt begins with text other requests share, which prefix reuse may find cached.
  bool shares_prefix() const { return system_prompt_tokens > 0 || conversation >= 0; }
};

// What every policy tracks about a request: tokens so far and the times the metrics and the timeline
// are made of. Policies change it only through ServerState, so the bookkeeping is the same for all.
struct RequestState {
  Request request;
  int answer_tokens_out = 0;
  int slot = -1;                // the batch row or slot it occupied last (0 for serial policies)
  double prefill_start_ms = 0;  // of its first prefill: a preempted request keeps it
  double first_token_ms = 0;    // likewise
  double finish_ms = 0;
  int admissions = 0;        // prefills begun: 1, plus one per preemption by recompute
  int prefill_tokens = 0;    // tokens its current (re)prefill covers: the prompt and the tokens already out
  int prefilled_tokens = 0;  // of which computed, or found in the KV cache, so far
  int padding_tokens = 0;    // tokens computed and dropped after its last, as a padding row of a static batch

  bool finished() const { return answer_tokens_out == request.answer_tokens; }
  // Context of its next decode step: after token k (k = answer_tokens_out) it attends over p + k positions.
  // It is also the length of a prefill that would give token k + 1 (a re-admission after preemption).
  int next_context() const { return request.prompt_tokens + answer_tokens_out; }
  // Context of its row in a decode step: next_context(), and one more for every step it rode along as padding.
  int decode_context() const { return next_context() + padding_tokens; }
  bool prefilling() const { return prefilled_tokens < prefill_tokens; }
  // Positions its KV cache holds once admitted: the prefill's progress, then p + k - 1 after token k (the
  // last token out is not in the cache until the step that feeds it back).
  int kv_positions() const { return prefilling() ? prefilled_tokens : request.prompt_tokens + answer_tokens_out - 1; }
};

// The longest answer of `requests` (Requests or RequestStates; 1 if there are none): what a static batch
// runs to, what reserve:B holds for, and what a padding row's cache must have room for.
inline int answer_tokens_of(const Request& request) { return request.answer_tokens; }
inline int answer_tokens_of(const RequestState& state) { return state.request.answer_tokens; }
template <class Requests>
int longest_answer_tokens(const Requests& requests) {
  int longest = 1;
  for (const auto& request : requests) longest = std::max(longest, answer_tokens_of(request));
  return longest;
}

}  // namespace kvlab::policy
