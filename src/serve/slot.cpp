#include "serve/slot.h"

#include <stdexcept>

namespace kvlab::serve {

Slot::Slot(int index, const ModelConfig& config, int capacity_positions) : index_(index), cache_(config, capacity_positions) {}

void Slot::assign(ServedRequest& request, double now_ms, long long step) {
  if (state_ != State::idle) throw std::logic_error("slot " + std::to_string(index_) + " assigned while busy");
  state_ = State::generating;
  request_ = &request;
  cache_.length = 0;  // the previous request's keys and values are simply overwritten
  request.state.slot = index_;
  request.state.prefill_start_ms = now_ms;
  request.prefill_step = step;
}

bool Slot::accept_token(int token, double now_ms, long long step) {
  next_input_ = token;
  if (state_ != State::generating) return false;  // padding
  ServedRequest& request = *request_;
  request.answer.push_back(token);
  request.state.answer_tokens_out = static_cast<int>(request.answer.size());
  if (request.answer.size() == 1) request.state.first_token_ms = now_ms;
  if (request.finished()) {
    request.state.finish_ms = now_ms;
    request.finish_step = step;
    state_ = State::done;
  }
  return state_ == State::done;
}

void Slot::release() {
  if (state_ != State::done) throw std::logic_error("slot " + std::to_string(index_) + " released before its request is done");
  state_ = State::idle;
  request_ = nullptr;
}

}  // namespace kvlab::serve
