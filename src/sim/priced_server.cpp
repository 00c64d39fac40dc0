#include "sim/priced_server.h"

#include <algorithm>

#include "sim/mixed_step.h"

namespace kvlab::sim {

PricedServer::PricedServer(const StepTable& steps, const std::vector<policy::Request>& workload)
    : policy::ServerState(workload),
      steps_(steps),
      history_(steps.after_prompt(), steps.prompt_pass()),
      one_row_(1),
      prefill_chunk_(1, policy::PrefillChunk{nullptr, 0}) {}

void PricedServer::wait_until(double ms) { clock_ms_ = std::max(clock_ms_, ms); }

void PricedServer::advance(double table_ms, size_t rows, size_t prompt_size) {
  const double factor = prompt_size > 0 ? history_.prompt_pass(prompt_size) : history_.decode_pass(rows);
  const double cost_ms = table_ms * factor;
  count_step(cost_ms, rows);
  clock_ms_ += cost_ms;
}

void PricedServer::decode_step(const std::vector<policy::RequestState*>& rows) {
  advance(steps_.decode_step_ms(static_cast<int>(rows.size()),
                                [&](int row) { return rows[static_cast<size_t>(row)]->decode_context(); }),
          rows.size());
  complete_step(clock_ms_, rows, no_chunks_);
}

void PricedServer::nocache_step(policy::RequestState& request) {
  advance(steps_.prefill_ms(request.next_context()), 1, static_cast<size_t>(request.next_context()));
  one_row_[0] = &request;
  complete_step(clock_ms_, one_row_, no_chunks_);
}

void PricedServer::mixed_step(const std::vector<policy::RequestState*>& decode_rows,
                              const std::vector<policy::PrefillChunk>& chunks) {
  // A step with prompt chunks is prompt work, counted by its largest chunk: in replays its decode passes
  // after it ran closer to that than to a prefill of all its rows (docs/replay.md).
  size_t largest_chunk = 0;
  for (const policy::PrefillChunk& chunk : chunks)
    largest_chunk = std::max(largest_chunk, static_cast<size_t>(chunk.tokens));
  advance(mixed_step_ms(steps_, decode_rows, chunks), decode_rows.size() + chunks.size(), largest_chunk);
  complete_step(clock_ms_, decode_rows, chunks);
}

void PricedServer::run_prefill_rest(policy::RequestState& request) {
  prefill_chunk_[0] = {&request, request.prefill_tokens - request.prefilled_tokens};
  advance(mixed_step_ms(steps_, no_decode_rows_, prefill_chunk_), 1, static_cast<size_t>(prefill_chunk_[0].tokens));
  complete_prefill(clock_ms_, request);
}

}  // namespace kvlab::sim
