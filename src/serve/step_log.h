#pragma once
// Every forward pass the engine ran: what it was, over which contexts, and when it started and ended on
// the run's clock. Kept so that each real step can be priced on the step table afterwards, which shows
// where the simulator's cost model and the real run part (sim-vs-real by kind of step and row count).
#include <cstddef>
#include <vector>

namespace kvlab::serve {

enum class StepKind {
  prefill,  // one prompt alone, from position 0 of its cache: table cost prefill(p)
  decode,   // one row per sequence, each at its own context: table cost sum_i decode(r, c_i) / r
  nocache,  // one sequence rerun whole into a cleared cache: table cost prefill(p + k - 1)
  mixed,    // decode rows and prefill chunks in one pass (chunked prefill): table cost sim::mixed_step_ms
};

const char* step_kind_name(StepKind kind);

struct StepRecord {
  StepKind kind = StepKind::decode;
  int sequences = 0;         // rows of a decode step; 1 for prefill and nocache; a mixed step's decode rows
  int chunks = 0;            // a mixed step's prefill chunks
  size_t first_context = 0;  // where this step's contexts start in StepLog::contexts()
  double start_ms = 0;
  double end_ms = 0;
};

class StepLog {
 public:
  // Sized once before the run, so that logging a step never allocates.
  void reserve(size_t steps, size_t contexts);

  // A step over `sequences` sequences whose contexts are contexts[0 .. sequences): a decode row's context
  // is its position + 1; a prefill's or a nocache pass's is its token count. A mixed step's `chunks`
  // chunks follow as (from, to) pairs of their sequences' positions, at contexts[sequences + 2i ..].
  void add(StepKind kind, double start_ms, double end_ms, const int* contexts, int sequences, int chunks = 0);

  const std::vector<StepRecord>& records() const { return records_; }
  const int* contexts(const StepRecord& record) const { return contexts_.data() + record.first_context; }

 private:
  std::vector<StepRecord> records_;
  std::vector<int> contexts_;
};

}  // namespace kvlab::serve
