#include "sim/serial.h"

#include <vector>

namespace kvlab::sim {

void SerialScheduler::serve(ServerState& server) {
  std::vector<RequestState*> row(1);
  while (!server.queue_empty()) {
    server.wait_for_next_arrival();
    RequestState& request = server.take_next();
    row[0] = &request;
    server.run_prefill(request, 0);
    while (!request.finished()) server.run_token_step(next_token_ms(server.steps(), request), row);
  }
}

// With k - 1 tokens out, the next is token k: p + k - 1 = next_context() tokens in both cases.
double SerialNoCache::next_token_ms(const StepTable& steps, const RequestState& request) const {
  return steps.prefill_ms(request.next_context());
}

double SerialCache::next_token_ms(const StepTable& steps, const RequestState& request) const {
  return steps.decode_ms(1, request.next_context());
}

}  // namespace kvlab::sim
