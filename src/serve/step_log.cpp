#include "serve/step_log.h"

namespace kvlab::serve {

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::prefill: return "prefill";
    case StepKind::decode: return "decode";
    case StepKind::nocache: return "nocache";
  }
  return "?";
}

void StepLog::reserve(size_t steps, size_t contexts) {
  records_.reserve(steps);
  contexts_.reserve(contexts);
}

void StepLog::add(StepKind kind, double start_ms, double end_ms, const int* contexts, int sequences) {
  records_.push_back(StepRecord{kind, sequences, contexts_.size(), start_ms, end_ms});
  contexts_.insert(contexts_.end(), contexts, contexts + sequences);
}

}  // namespace kvlab::serve
