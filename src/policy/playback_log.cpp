#include "policy/playback_log.h"

#include <algorithm>

namespace kvlab::policy {

void PlaybackLog::admit(size_t request, int slot, double t_ms, int answer_tokens_out) {
  open_stint_[request] = static_cast<long long>(stints_.request.size());
  stints_.request.push_back(request);
  stints_.slot.push_back(slot);
  stints_.tokens_before.push_back(answer_tokens_out);
  stints_.start_ms.push_back(t_ms);
  stints_.end_ms.push_back(t_ms);
  stints_.held_until_ms.push_back(t_ms);
}

void PlaybackLog::leave(size_t request, double t_ms) {
  size_t stint = static_cast<size_t>(open_stint_[request]);
  stints_.end_ms[stint] = t_ms;
  stints_.held_until_ms[stint] = t_ms;
}

void PlaybackLog::ride_along(size_t request, double t_ms) {
  size_t stint = static_cast<size_t>(open_stint_[request]);
  stints_.held_until_ms[stint] = std::max(stints_.held_until_ms[stint], t_ms);
}

void PlaybackLog::memory_budget(std::optional<long long> budget_blocks, int block_tokens) {
  budget_blocks_ = budget_blocks;
  block_tokens_ = block_tokens;
}

void PlaybackLog::memory_use(double t_ms, long long held_blocks, long long used_tokens) {
  if (!memory_t_ms_.empty() && memory_t_ms_.back() == t_ms) {
    memory_t_ms_.pop_back();
    held_blocks_.pop_back();
    used_tokens_.pop_back();
  }
  // A point equal to the one before changes nothing.
  if (!held_blocks_.empty() && held_blocks_.back() == held_blocks && used_tokens_.back() == used_tokens) return;
  memory_t_ms_.push_back(t_ms);
  held_blocks_.push_back(held_blocks);
  used_tokens_.push_back(used_tokens);
}

void PlaybackLog::preemption(size_t request, double t_ms) {
  preemption_t_ms_.push_back(t_ms);
  preempted_request_.push_back(request);
}

nlohmann::json PlaybackLog::queue_json(const std::vector<RequestState>& requests) const {
  std::vector<double> arrival_ms, first_token_ms, finish_ms;
  std::vector<int> prompt_tokens, answer_tokens;
  for (const RequestState& state : requests) {
    arrival_ms.push_back(state.request.arrival_ms);
    first_token_ms.push_back(state.first_token_ms);
    finish_ms.push_back(state.finish_ms);
    prompt_tokens.push_back(state.request.prompt_tokens);
    answer_tokens.push_back(state.request.answer_tokens);
  }
  return {{"stints",
           {{"request", stints_.request},
            {"slot", stints_.slot},
            {"start_ms", stints_.start_ms},
            {"end_ms", stints_.end_ms},
            {"held_until_ms", stints_.held_until_ms},
            {"tokens_before", stints_.tokens_before}}},
          {"requests",
           {{"arrival_ms", arrival_ms},
            {"first_token_ms", first_token_ms},
            {"finish_ms", finish_ms},
            {"prompt_tokens", prompt_tokens},
            {"answer_tokens", answer_tokens}}}};
}

nlohmann::json PlaybackLog::memory_json() const {
  return {{"budget_blocks", budget_blocks_ ? nlohmann::json(*budget_blocks_) : nlohmann::json()},
          {"block_tokens", block_tokens_},
          {"t_ms", memory_t_ms_},
          {"held_blocks", held_blocks_},
          {"used_tokens", used_tokens_},
          {"preemptions", {{"t_ms", preemption_t_ms_}, {"request", preempted_request_}}}};
}

}  // namespace kvlab::policy
