#include "serve/step_log.h"

namespace kvlab::serve {

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::prefill: return "prefill";
    case StepKind::decode: return "decode";
    case StepKind::nocache: return "nocache";
    case StepKind::mixed: return "mixed";
  }
  return "?";
}

void StepLog::reserve(size_t steps, size_t contexts) {
  records_.reserve(steps);
  contexts_.reserve(contexts);
}

void StepLog::add(StepKind kind, double start_ms, double end_ms, const int* contexts, int sequences, int chunks) {
  records_.push_back(StepRecord{kind, sequences, chunks, contexts_.size(), start_ms, end_ms});
  contexts_.insert(contexts_.end(), contexts, contexts + sequences + 2 * chunks);
}

}  // namespace kvlab::serve
