#pragma once
// What a page needs to play a whole queue back, recorded while a policy serves it (opt-in: the option
// queue_timeline of simulate.h), in columns so that 1,000 requests stay small:
//   - seat occupancy: every stint of a request in a slot, from its (re)admission to its finish or its
//     preemption, and how long the seat stayed held after the finish (static batching's padding);
//   - for the KV-memory policies, the blocks in use as change points, and the preemptions.
// Nothing here changes what a policy does or what it costs.
#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::policy {

class PlaybackLog {
 public:
  explicit PlaybackLog(size_t request_count) : open_stint_(request_count, -1) {}

  // Seats (ServerState calls these). `request` is the workload index.
  void admit(size_t request, int slot, double t_ms, int answer_tokens_out);
  void leave(size_t request, double t_ms);       // finished or preempted: the stint ends
  void ride_along(size_t request, double t_ms);  // a finished row that a step still carried (padding)

  // KV memory (KvMemory calls these).
  void memory_budget(std::optional<long long> budget_blocks, int block_tokens);
  // Blocks held and token slots holding KV from `t_ms` on; a second point at the same time replaces the first.
  void memory_use(double t_ms, long long held_blocks, long long used_tokens);
  void preemption(size_t request, double t_ms);
  bool records_memory() const { return block_tokens_ > 0; }

  // {"stints": {request, slot, start_ms, end_ms, held_until_ms, tokens_before},
  //  "requests": {arrival_ms, first_token_ms, finish_ms, prompt_tokens, answer_tokens}}: stints in
  // admission order, requests in workload order (docs/memory.md, "Playback").
  nlohmann::json queue_json(const std::vector<RequestState>& requests) const;
  // {"budget_blocks", "block_tokens", "t_ms", "held_blocks", "used_tokens", "preemptions": {t_ms, request}}.
  nlohmann::json memory_json() const;

 private:
  struct Stints {
    std::vector<size_t> request;
    std::vector<int> slot, tokens_before;
    std::vector<double> start_ms, end_ms, held_until_ms;
  };
  Stints stints_;
  std::vector<long long> open_stint_;  // per request: its stint in progress, or the last one (-1: none yet)

  std::optional<long long> budget_blocks_;
  int block_tokens_ = 0;  // 0: no memory recorded
  std::vector<double> memory_t_ms_;
  std::vector<long long> held_blocks_, used_tokens_;
  std::vector<double> preemption_t_ms_;
  std::vector<size_t> preempted_request_;
};

}  // namespace kvlab::policy
