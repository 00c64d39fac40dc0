#include "policy/serial.h"

namespace kvlab::policy {

void SerialScheduler::serve(ServerState& server) {
  while (!server.queue_empty()) {
    server.wait_for_next_arrival();
    RequestState& request = server.take_next();
    server.prefill(request, 0);
    while (!request.finished()) next_token(server, request);
  }
}

void SerialCache::next_token(ServerState& server, RequestState& request) {
  row_[0] = &request;
  server.decode_step(row_);
}

}  // namespace kvlab::policy
