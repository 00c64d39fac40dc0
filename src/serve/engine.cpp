#include "serve/engine.h"

#include <algorithm>
#include <stdexcept>

#include "common/input_error.h"
#include "model/generate.h"
#include "policy/kv_blocks.h"

namespace kvlab::serve {

namespace {

constexpr double kProgressEveryMs = 100;

}  // namespace

int engine_slots(int policy_slots, size_t requests) {
  return static_cast<int>(std::clamp<long long>(policy_slots, 1, static_cast<long long>(requests)));
}

void check_workload_fits(const ModelConfig& config, const std::vector<policy::Request>& workload,
                         const std::string& path) {
  const int positions = policy::cache_positions(workload);
  if (positions > config.max_seq)
    throw_range({path, "", {}}, ": the longest prompt + the longest answer - 1 = " + std::to_string(positions) +
                                    " positions, more than the model's max_seq = " + std::to_string(config.max_seq) +
                                    " (a static batch's finished rows run on to the batch's longest answer)");
}

Engine::Engine(Model& model, const std::vector<policy::Request>& workload, int slots, const EngineOptions& options)
    : policy::ServerState(workload), model_(model), options_(options), one_row_(1) {
  if (workload.empty()) throw_range({"workload", "", {}}, "must hold at least one request");
  check_workload_fits(model.config(), workload, "workload");
  const ModelConfig& config = model.config();

  std::vector<std::vector<int>> prompts =
      options_.prompts.empty() ? served_prompts(model, workload, options.prompt_seed) : std::move(options_.prompts);
  options_.prompts.clear();
  if (prompts.size() != workload.size()) throw std::logic_error("prompts for another workload");
  served_.reserve(workload.size());
  size_t answer_tokens = 0;
  for (size_t i = 0; i < workload.size(); ++i) {
    ServedRequest served;
    served.prompt = std::move(prompts[i]);
    if (static_cast<int>(served.prompt.size()) != workload[i].prompt_tokens)
      throw std::logic_error("request " + std::to_string(i) + "'s prompt has another length than its workload's");
    served.answer.reserve(static_cast<size_t>(workload[i].answer_tokens));
    served_.push_back(std::move(served));
    answer_tokens += static_cast<size_t>(workload[i].answer_tokens);
  }

  const int slot_count = engine_slots(slots, workload.size());
  const int positions = policy::cache_positions(workload);
  slots_.reserve(static_cast<size_t>(slot_count));
  if (options.paged_kv)
    kv_pool_ = std::make_unique<KvBlockPool>(
        config, static_cast<int>(policy::kv_pool_blocks(workload, slot_count, options.kv)), options.kv.block_tokens);
  for (int i = 0; i < slot_count; ++i) {
    slots_.push_back(Slot{kv_pool_ ? KvCache(*kv_pool_) : KvCache(config, positions)});
    if (kv_pool_) slots_.back().cache.block_table.reserve(static_cast<size_t>(options.kv.blocks_for(positions)));
  }

  // A decode step has a row per slot; a prefill or a no-cache pass a row per token of its sequence.
  const int max_rows = std::max(slot_count, positions);
  rows_.reserve(static_cast<size_t>(max_rows));
  tokens_.reserve(static_cast<size_t>(max_rows));
  contexts_.reserve(3 * static_cast<size_t>(slot_count));  // a mixed step: a context or a chunk's span per slot
  step_requests_.reserve(static_cast<size_t>(slot_count));
  model_.reserve_rows(max_rows);
  // Steps: a prefill per request plus at most one step per further token (padding adds no steps, only
  // rows); rows summed over steps: at most every request riding along to the longest answer.
  step_log_.reserve(workload.size() + answer_tokens,
                    workload.size() * (1 + static_cast<size_t>(policy::longest_answer_tokens(workload))));

  warm_up();
  clock_ = RunClock();
}

void Engine::warm_up() {
  // One prefill and one decode step over every slot, so that the first timed steps do not pay for cold
  // code and scratch pages: measure() warms up every cell it times the same way. Nothing is logged, and
  // the caches are left empty.
  const std::vector<int>& prompt = served_[index_of(peek_next())].prompt;
  rows_.clear();
  const int prompt_tokens = static_cast<int>(prompt.size());
  if (kv_pool_) {
    // Every slot writes the first blocks of the pool (the prompt fits the memory alone); what they hold
    // is never read, and the tables are emptied after.
    for (Slot& slot : slots_) {
      slot.cache.block_table.resize(static_cast<size_t>(options_.kv.blocks_for(prompt_tokens)));
      for (size_t b = 0; b < slot.cache.block_table.size(); ++b) slot.cache.block_table[b] = static_cast<int>(b);
    }
  }
  for (int i = 0; i < prompt_tokens; ++i) rows_.push_back(Row{prompt[i], &slots_[0].cache, i, i == prompt_tokens - 1});
  forward();
  rows_.clear();
  for (Slot& slot : slots_) {
    slot.cache.length = 0;
    rows_.push_back(Row{prompt[0], &slot.cache, 0, true});
  }
  forward();
  for (Slot& slot : slots_) {
    slot.cache.length = 0;
    if (kv_pool_) slot.cache.block_table.clear();
  }
}

Engine::Slot& Engine::slot_of(const policy::RequestState& request) {
  if (request.slot < 0 || request.slot >= static_cast<int>(slots_.size()))
    throw std::logic_error("request seated in slot " + std::to_string(request.slot) + " of " +
                           std::to_string(slots_.size()));
  Slot& slot = slots_[static_cast<size_t>(request.slot)];
  if (slot.request != index_of(request))
    throw std::logic_error("slot " + std::to_string(request.slot) + " does not hold the request stepped in it");
  return slot;
}

int Engine::sequence_token(const ServedRequest& served, int i) {
  const int prompt_tokens = static_cast<int>(served.prompt.size());
  return i < prompt_tokens ? served.prompt[static_cast<size_t>(i)]
                           : served.answer[static_cast<size_t>(i - prompt_tokens)];
}

void Engine::forward() { model_.greedy_tokens(rows_, tokens_); }

void Engine::accept_token(const policy::RequestState& request, Slot& slot, int token) {
  slot.next_input = token;
  if (!request.finished()) served_[index_of(request)].answer.push_back(token);
}

Engine::Slot& Engine::seat(const policy::RequestState& request) {
  // A slot's own cache is simply overwritten; a paged one is pointed at the request's blocks before each
  // pass, and its first prefilled_tokens positions are the cached prefix's blocks, computed before.
  if (!kv_pool_ && request.prefilled_tokens != 0) throw std::logic_error("a slot's own cache holds no cached prefix");
  Slot& slot = slots_.at(static_cast<size_t>(request.slot));
  slot.request = index_of(request);
  slot.admission = request.admissions;
  slot.cache.length = request.prefilled_tokens;
  if (kv_pool_) slot.cache.block_table.clear();  // follow_block_table() copies the new admission's table
  return slot;
}

Engine::Slot& Engine::prefill_slot(const policy::RequestState& request) {
  const Slot& slot = slots_.at(static_cast<size_t>(request.slot));
  return slot.request == index_of(request) && slot.admission == request.admissions ? slot_of(request) : seat(request);
}

void Engine::follow_block_table(const policy::RequestState& request, Slot& slot, int first_written, int end_position) {
  if (!kv_pool_) return;
  const policy::KvBlockManager* blocks = kv_blocks();
  if (blocks == nullptr) throw std::logic_error("paged KV under a policy without a block manager");
  const std::vector<int>& table = blocks->block_table(request);
  std::vector<int>& followed = slot.cache.block_table;
  if (followed.size() < table.size())
    followed.insert(followed.end(), table.begin() + static_cast<std::ptrdiff_t>(followed.size()), table.end());
  if (options_.check_block_tables) check_block_table(request, slot, first_written, end_position);
}

void Engine::check_block_table(const policy::RequestState& request, const Slot& slot, int first_written,
                               int end_position) const {
  const policy::KvBlockManager* blocks = kv_blocks();
  const std::vector<int>& table = blocks->block_table(request);
  if (slot.cache.block_table != table)
    throw std::logic_error("request " + std::to_string(index_of(request)) + "'s slot does not follow its block table");
  if (slot.cache.capacity() < end_position)
    throw std::logic_error("request " + std::to_string(index_of(request)) + " holds blocks for " +
                           std::to_string(slot.cache.capacity()) + " positions, not " + std::to_string(end_position));
  for (size_t b = 0; b < table.size(); ++b) {
    if (table[b] >= kv_pool_->n_blocks())
      throw std::logic_error("block " + std::to_string(table[b]) + " is outside the pool of " +
                             std::to_string(kv_pool_->n_blocks()));
    // A block another request reads too holds a shared prefix: it is never written again.
    const int first = static_cast<int>(b) * kv_pool_->block_tokens();
    if (first + kv_pool_->block_tokens() > first_written && first < end_position && blocks->holders(table[b]) != 1)
      throw std::logic_error("request " + std::to_string(index_of(request)) + " would write shared block " +
                             std::to_string(table[b]));
  }
}

void Engine::add_prefill_rows(const policy::RequestState& request, Slot& slot, int from, int to) {
  const ServedRequest& served = served_[index_of(request)];
  for (int i = from; i < to; ++i)
    rows_.push_back(Row{sequence_token(served, i), &slot.cache, i, i == request.prefill_tokens - 1});
}

void Engine::run_prefill_rest(policy::RequestState& request) {
  const double start_ms = now_ms();
  const size_t finished_before = finished_count();
  Slot& slot = seat(request);
  const int from = request.prefilled_tokens;
  rows_.clear();
  follow_block_table(request, slot, from, request.prefill_tokens);
  add_prefill_rows(request, slot, from, request.prefill_tokens);
  forward();
  const double end_ms = now_ms();
  count_step(end_ms - start_ms, 1);
  accept_token(request, slot, tokens_[0]);
  complete_prefill(end_ms, request);
  step_requests_.assign(1, &request);
  // After a cached prefix it is priced as the simulator prices it: a chunk of positions [from, p).
  if (from == 0) {
    contexts_.assign(1, request.prefill_tokens);
    end_step(StepKind::prefill, start_ms, end_ms, finished_before);
  } else {
    contexts_.assign({from, request.prefill_tokens});
    end_step(StepKind::mixed, start_ms, end_ms, finished_before, 1);
  }
}

void Engine::decode_step(const std::vector<policy::RequestState*>& rows) {
  const double start_ms = now_ms();
  const size_t finished_before = finished_count();
  rows_.clear();
  contexts_.clear();
  for (const policy::RequestState* row : rows) {
    Slot& slot = slot_of(*row);
    follow_block_table(*row, slot, slot.cache.length, slot.cache.length + 1);
    if (slot.cache.length >= slot.cache.capacity())
      throw std::logic_error("decode step past the end of slot " + std::to_string(row->slot) + "'s cache");
    rows_.push_back(Row{slot.next_input, &slot.cache, slot.cache.length, true});
    contexts_.push_back(slot.cache.length + 1);
  }
  forward();
  const double end_ms = now_ms();
  count_step(end_ms - start_ms, rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    accept_token(*rows[i], slots_[static_cast<size_t>(rows[i]->slot)], tokens_[i]);
  complete_step(end_ms, rows, no_chunks_);
  step_requests_.assign(rows.begin(), rows.end());
  end_step(StepKind::decode, start_ms, end_ms, finished_before);
}

void Engine::nocache_step(policy::RequestState& request) {
  const double start_ms = now_ms();
  const size_t finished_before = finished_count();
  Slot& slot = slot_of(request);
  const ServedRequest& served = served_[slot.request];
  const int length = request.next_context();
  slot.cache.length = 0;  // nothing is kept from the previous token
  rows_.clear();
  for (int i = 0; i < length; ++i) rows_.push_back(Row{sequence_token(served, i), &slot.cache, i, i == length - 1});
  forward();
  const double end_ms = now_ms();
  count_step(end_ms - start_ms, 1);
  accept_token(request, slot, tokens_[0]);
  one_row_[0] = &request;
  complete_step(end_ms, one_row_, no_chunks_);
  contexts_.assign(1, length);
  step_requests_.assign(1, &request);
  end_step(StepKind::nocache, start_ms, end_ms, finished_before);
}

void Engine::mixed_step(const std::vector<policy::RequestState*>& decode_rows,
                        const std::vector<policy::PrefillChunk>& chunks) {
  const double start_ms = now_ms();
  const size_t finished_before = finished_count();
  rows_.clear();
  contexts_.clear();
  step_requests_.clear();
  for (const policy::RequestState* row : decode_rows) {
    Slot& slot = slot_of(*row);
    follow_block_table(*row, slot, slot.cache.length, slot.cache.length + 1);
    rows_.push_back(Row{slot.next_input, &slot.cache, slot.cache.length, true});
    contexts_.push_back(slot.cache.length + 1);
    step_requests_.push_back(row);
  }
  for (const policy::PrefillChunk& chunk : chunks) {
    const policy::RequestState& request = *chunk.request;
    Slot& slot = prefill_slot(request);
    follow_block_table(request, slot, request.prefilled_tokens, request.prefilled_tokens + chunk.tokens);
    add_prefill_rows(request, slot, request.prefilled_tokens, request.prefilled_tokens + chunk.tokens);
    contexts_.push_back(request.prefilled_tokens);
    contexts_.push_back(request.prefilled_tokens + chunk.tokens);
    step_requests_.push_back(&request);
  }
  forward();
  const double end_ms = now_ms();
  count_step(end_ms - start_ms, decode_rows.size() + chunks.size());
  // Tokens come in row order: one per decode row, then one per chunk that completes its prefill.
  size_t next_token = 0;
  for (const policy::RequestState* row : decode_rows)
    accept_token(*row, slots_[static_cast<size_t>(row->slot)], tokens_[next_token++]);
  for (const policy::PrefillChunk& chunk : chunks)
    if (chunk.request->prefilled_tokens + chunk.tokens == chunk.request->prefill_tokens)
      accept_token(*chunk.request, slots_[static_cast<size_t>(chunk.request->slot)], tokens_[next_token++]);
  complete_step(end_ms, decode_rows, chunks);
  end_step(StepKind::mixed, start_ms, end_ms, finished_before, static_cast<int>(chunks.size()));
}

void Engine::end_step(StepKind kind, double start_ms, double end_ms, size_t finished_before, int chunks) {
  const long long step = steps_run() - 1;
  step_log_.add(kind, start_ms, end_ms, contexts_.data(), static_cast<int>(contexts_.size()) - 2 * chunks, chunks);
  for (const policy::RequestState* request : step_requests_) {
    ServedRequest& served = served_[index_of(*request)];
    if (served.prefill_step < 0) served.prefill_step = step;
    if (request->finished() && served.finish_step < 0) served.finish_step = step;
  }
  if (finished_count() == finished_before) return;
  if (options_.progress && (end_ms - last_progress_ms_ >= kProgressEveryMs || finished_count() == requests().size())) {
    last_progress_ms_ = end_ms;
    options_.progress(finished_count());
  }
}

std::vector<ServedRequest> Engine::served_requests() const {
  std::vector<ServedRequest> run = served_;
  for (size_t i = 0; i < run.size(); ++i) run[i].state = requests()[i];
  return run;
}

}  // namespace kvlab::serve
