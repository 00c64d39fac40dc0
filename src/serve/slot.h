#pragma once
// A server slot, in the manner of llama.cpp's server slots: one KV cache, allocated once for the whole
// run, serving one request at a time and reused by the next when it is released.
//
//   idle --assign--> generating --n-th token--> done --release--> idle
//
// A done slot that a static batch keeps is padding: its row stays in every decode step (computing, as
// the cost model charges it) and the tokens it produces are dropped. Continuous batching releases a
// slot as soon as it is done.
#include "model/kv_cache.h"
#include "model/model.h"
#include "serve/served_request.h"

namespace kvlab::serve {

class Slot {
 public:
  enum class State { idle, generating, done };

  // The cache holds `capacity_positions` positions: the workload's longest p + n - 1, so that a padding
  // row of a static batch can run on until the batch's longest answer is done.
  Slot(int index, const ModelConfig& config, int capacity_positions);

  int index() const { return index_; }
  State state() const { return state_; }
  ServedRequest& request() const { return *request_; }  // only when not idle
  KvCache& cache() { return cache_; }

  // idle -> generating: `request` is about to be prefilled into this slot's cache, from position 0, by
  // forward pass `step`, starting at `now_ms`.
  void assign(ServedRequest& request, double now_ms, long long step);

  // The token that this slot's row produced in forward pass `step`, ready at `now_ms`. While generating
  // it joins the answer: the first stamps the first token, the n-th the finish (-> done). When done, the
  // slot is padding and the token is dropped. Either way it is the row's next decode input. Returns
  // whether this token finished the request.
  bool accept_token(int token, double now_ms, long long step);

  // done -> idle.
  void release();

  // This slot's row in the next decode step: its last token at the next position of its cache.
  Row decode_row() { return Row{next_input_, &cache_, cache_.length, true}; }

 private:
  int index_;
  KvCache cache_;
  State state_ = State::idle;
  ServedRequest* request_ = nullptr;
  int next_input_ = 0;
};

}  // namespace kvlab::serve
