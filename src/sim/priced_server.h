#pragma once
// The priced backend: the simulator's server. Every forward pass a policy asks for is priced on the
// measured step table (contract section 1; mixed steps as mixed_step.h defines), times the factor of
// what ran before it where the table carries measured parts for that (pass_history.h), and moves a
// simulated clock by that much; nothing is computed.
#include <vector>

#include "policy/server_state.h"
#include "sim/pass_history.h"
#include "sim/step_table.h"

namespace kvlab::sim {

class PricedServer : public policy::ServerState {
 public:
  PricedServer(const StepTable& steps, const std::vector<policy::Request>& workload);

  double now_ms() const override { return clock_ms_; }

  // decode(r, c_i) summed over the rows' shares, each row at its decode_context().
  void decode_step(const std::vector<policy::RequestState*>& rows) override;
  // prefill(p + k - 1) for token k: a full forward over the sequence so far.
  void nocache_step(policy::RequestState& request) override;
  void mixed_step(const std::vector<policy::RequestState*>& decode_rows,
                  const std::vector<policy::PrefillChunk>& chunks) override;
  // A step of the one chunk: the whole prompt alone costs prefill(p); after a prefix hit, only the
  // positions past the cached ones are computed.
  void run_prefill_rest(policy::RequestState& request) override;

 protected:
  void wait_until(double ms) override;

 private:
  // Moves the clock by a step of `rows` sequences whose table price is `table_ms`: a decode pass, or
  // (where prompt_size > 0) a prompt pass, one that computes prompt positions: a prefill of prompt_size
  // tokens, a no-cache pass over that many, a mixed step whose largest prompt chunk has that many.
  void advance(double table_ms, size_t rows, size_t prompt_size = 0);

  const StepTable& steps_;
  PassHistory history_;
  double clock_ms_ = 0;
  // Scratch lists for the passes that are one row or one chunk, so that no step allocates.
  std::vector<policy::RequestState*> no_decode_rows_, one_row_;
  std::vector<policy::PrefillChunk> no_chunks_;
  std::vector<policy::PrefillChunk> prefill_chunk_;  // the one chunk of run_prefill_rest()
};

}  // namespace kvlab::sim
