#pragma once
// The real backend: the policies of src/sim (policy/scheduler.h) run on the real model and the real clock.
// It implements the forward passes of policy::ServerState, the interface the simulator's priced backend
// implements too, so a policy is one class for both; unlike the priced backend, time is never computed:
// it is read from the clock when each forward pass is done, and the tokens are the model's.
//
// Without paged KV, each slot has its own contiguous KV cache, allocated once for the whole run and reused
// by the next request the policy seats there, in the manner of llama.cpp's server slots (reserve:B too: a
// slot's cache is its reservation). With paged KV (paged, chunked), keys and values live in one pool of
// blocks (model/kv_cache.h), and each request's cache reads and writes the very blocks the policy's
// block manager (policy/kv_blocks.h) gives it: a preempted request's blocks are freed and its tokens
// recomputed into the blocks it is given next, and a request whose prompt prefix is cached (the system
// prompt, or an earlier turn of its chat with that turn's answer) reads the blocks another request
// computed and prefills only the rest. Everything a run needs (caches, prompts,
// answers, scratch rows, the step log) is allocated before the clock starts; a forward pass allocates
// nothing.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/kv_cache.h"
#include "model/model.h"
#include "policy/kv_blocks.h"
#include "policy/server_state.h"
#include "serve/prompts.h"
#include "serve/run_clock.h"
#include "serve/served_request.h"
#include "serve/step_log.h"

namespace kvlab::serve {

#ifdef NDEBUG
constexpr bool kCheckBlockTablesByDefault = false;
#else
constexpr bool kCheckBlockTablesByDefault = true;
#endif

struct EngineOptions {
  // The prompts' seed (serve/prompts.h).
  uint64_t prompt_seed = 1;
  // Each request's prompt, workload order, as served_prompts(model, workload, prompt_seed) makes them (a
  // replay makes them once for all its runs); empty: the engine makes them before its clock starts.
  std::vector<std::vector<int>> prompts;
  // Called with the count of finished requests, after the step that finished one, at most every 100 ms.
  std::function<void(size_t finished_requests)> progress;
  // The KV memory of reserve, paged and chunked, as in the simulator (default: no limit).
  policy::KvSettings kv;
  // Keys and values in one pool of kv.block_tokens-token blocks, as the policy's block manager assigns
  // them (paged and chunked; run_engine sets it); otherwise a contiguous cache per slot.
  bool paged_kv = false;
  // Paged KV: before every pass, check each row's block table against its positions and the pool (every
  // block inside the pool, room for the positions the pass writes, none of them in a shared block). Off
  // in a release build, where the tests turn it on: the tables come from the simulator's block manager.
  bool check_block_tables = kCheckBlockTablesByDefault;
};

// The slots the engine allocates for a policy of `policy_slots` slots serving `requests` requests: at most
// one per request, since more could never be busy at once.
int engine_slots(int policy_slots, size_t requests);

// Throws InputError naming `path` when cache_positions(workload) exceeds the model's max_seq.
void check_workload_fits(const ModelConfig& config, const std::vector<policy::Request>& workload,
                         const std::string& path);

class Engine : public policy::ServerState {
 public:
  // engine_slots(slots, workload.size()) slots. The clock starts at 0 at the end of construction, after
  // the prompts are made (a chat's answers generated) and a warm-up forward pass that is not logged.
  Engine(Model& model, const std::vector<policy::Request>& workload, int slots, const EngineOptions& options);

  double now_ms() const override { return clock_.now_ms(); }

  // The forward passes. Each reads the clock when its tokens are ready, and that is the time of every
  // first token and finish it produces.
  // The rest of `request`'s begun prefill: its prompt and, after a preemption, the tokens it had already
  // given (recomputed), after the prefilled_tokens found in the KV cache (prefix reuse: other blocks').
  void run_prefill_rest(policy::RequestState& request) override;
  // One decode step over `rows` (generating or padding), each its last token at the next position of its cache.
  void decode_step(const std::vector<policy::RequestState*>& rows) override;
  // No cache: the whole sequence so far (prompt and answer) rerun into its slot's cleared cache.
  void nocache_step(policy::RequestState& request) override;
  // The decode rows, each at the next position of its cache, and each chunk's positions of its sequence,
  // in one forward pass: the model writes every row's key and value before any row attends.
  void mixed_step(const std::vector<policy::RequestState*>& decode_rows,
                  const std::vector<policy::PrefillChunk>& chunks) override;

  // The run: each request's tokens, steps and (copied from the server's bookkeeping) its times.
  std::vector<ServedRequest> served_requests() const;
  const StepLog& step_log() const { return step_log_; }

 protected:
  void wait_until(double ms) override { clock_.wait_until(ms); }

 private:
  // One slot: its KV cache and the request last seated in it.
  struct Slot {
    KvCache cache;
    size_t request = SIZE_MAX;  // workload index
    int admission = 0;          // that request's admissions when it was seated: a new one means a reseat
    int next_input = 0;         // the token its row feeds back in the next decode step
  };

  // The slot `request` occupies, checked against what the policy seated there.
  Slot& slot_of(const policy::RequestState& request);
  // The slot the policy just seated `request` in, its cache holding the prefix found cached (paged) or
  // emptied, for the request's (re)prefill.
  Slot& seat(const policy::RequestState& request);
  // The slot of `request`'s begun (re)prefill: seat() for its first chunk, slot_of() for the others.
  Slot& prefill_slot(const policy::RequestState& request);
  // Paged KV: the slot's block table follows the blocks the block manager gives `request` before a pass
  // that writes its positions [first_written, end_position). Between an admission (seat() empties the
  // slot's table, so the first pass copies it whole) and a release the manager only appends blocks to a
  // table, so only a longer table's new blocks are copied; with options.check_block_tables,
  // check_block_table() runs too.
  void follow_block_table(const policy::RequestState& request, Slot& slot, int first_written, int end_position);
  // Throws std::logic_error unless `slot`'s table equals the manager's, every block is inside the pool, it
  // covers `end_position` positions, and none from `first_written` on is shared with another request.
  void check_block_table(const policy::RequestState& request, const Slot& slot, int first_written,
                         int end_position) const;
  // Rows for positions [from, to) of `request`'s sequence into `slot`'s cache; the last wants logits if
  // it completes the prefill.
  void add_prefill_rows(const policy::RequestState& request, Slot& slot, int from, int to);
  // Token i of `served`'s sequence: the prompt, then the answer so far.
  static int sequence_token(const ServedRequest& served, int i);
  // Runs rows_ through the model; wanted rows' greedy tokens go to tokens_, in row order.
  void forward();
  // The token a row of `request` produced: it joins the answer if the request was still generating, and
  // is the row's next decode input either way.
  void accept_token(const policy::RequestState& request, Slot& slot, int token);
  // Logs the step (contexts_, its last 2 * `chunks` the chunks' spans), stamps the step index of
  // admissions and finishes, and reports progress now and then.
  void end_step(StepKind kind, double start_ms, double end_ms, size_t finished_before, int chunks = 0);
  void warm_up();

  Model& model_;
  EngineOptions options_;
  std::unique_ptr<KvBlockPool> kv_pool_;  // paged KV only
  std::vector<ServedRequest> served_;     // workload order: prompts, answers, step indices
  std::vector<Slot> slots_;
  std::vector<Row> rows_;                                   // the forward pass being built
  std::vector<int> tokens_;                                 // its greedy tokens, one per row that wants logits
  std::vector<int> contexts_;                               // its sequences' contexts, for the step log
  std::vector<const policy::RequestState*> step_requests_;  // its requests, to stamp admissions and finishes
  std::vector<policy::RequestState*> one_row_;
  std::vector<policy::PrefillChunk> no_chunks_;
  StepLog step_log_;
  double last_progress_ms_ = 0;
  RunClock clock_;
};

}  // namespace kvlab::serve
