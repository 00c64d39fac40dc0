#include "serve/engine.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "common/input_error.h"
#include "model/generate.h"
#include "model/kernels.h"

namespace kvlab::serve {

namespace {

constexpr double kProgressEveryMs = 100;

}  // namespace

int cache_positions(const std::vector<sim::Request>& workload) {
  int longest_prompt = 1, longest_answer = 1;
  for (const sim::Request& request : workload) {
    longest_prompt = std::max(longest_prompt, request.prompt_tokens);
    longest_answer = std::max(longest_answer, request.answer_tokens);
  }
  return longest_prompt + longest_answer - 1;
}

void check_workload_fits(const ModelConfig& config, const std::vector<sim::Request>& workload, const std::string& path) {
  const int positions = cache_positions(workload);
  if (positions > config.max_seq)
    throw_range({path, "", {}}, ": the longest prompt + the longest answer - 1 = " + std::to_string(positions) +
                " positions, more than the model's max_seq = " + std::to_string(config.max_seq) +
                " (a static batch's finished rows run on to the batch's longest answer)");
}

Engine::Engine(Model& model, const std::vector<sim::Request>& workload, int slots, const EngineOptions& options)
    : model_(model), options_(options), queue_(workload.size()) {
  if (workload.empty()) throw_range({"workload", "", {}}, "must hold at least one request");
  check_workload_fits(model.config(), workload, "workload");
  const ModelConfig& config = model.config();

  requests_.reserve(workload.size());
  size_t answer_tokens = 0;
  int longest_answer = 1;
  for (size_t i = 0; i < workload.size(); ++i) {
    ServedRequest served;
    served.state.request = workload[i];
    served.prompt = make_prompt(workload[i].prompt_tokens, config.vocab, options.prompt_seed + i);
    served.answer.reserve(static_cast<size_t>(workload[i].answer_tokens));
    requests_.push_back(std::move(served));
    answer_tokens += static_cast<size_t>(workload[i].answer_tokens);
    longest_answer = std::max(longest_answer, workload[i].answer_tokens);
  }
  std::iota(queue_.begin(), queue_.end(), size_t{0});
  std::stable_sort(queue_.begin(), queue_.end(), [&](size_t a, size_t b) {
    return requests_[a].state.request.arrival_ms < requests_[b].state.request.arrival_ms;
  });

  const int slot_count = std::clamp(slots, 1, static_cast<int>(workload.size()));
  const int positions = cache_positions(workload);
  slots_.reserve(static_cast<size_t>(slot_count));
  for (int i = 0; i < slot_count; ++i) slots_.emplace_back(i, config, positions);

  // A decode step has a row per slot; a prefill or a no-cache pass a row per token of its sequence.
  const int max_rows = std::max(slot_count, positions);
  rows_.reserve(static_cast<size_t>(max_rows));
  tokens_.reserve(static_cast<size_t>(max_rows));
  contexts_.reserve(static_cast<size_t>(slot_count));
  model_.reserve_rows(max_rows);
  // Steps: a prefill per request plus at most one step per further token (padding adds no steps, only
  // rows); rows summed over steps: at most every request riding along to the longest answer.
  step_log_.reserve(workload.size() + answer_tokens, workload.size() * (1 + static_cast<size_t>(longest_answer)));

  warm_up();
  clock_ = RunClock();
}

void Engine::warm_up() {
  // One prefill and one decode step over every slot, so that the first timed steps do not pay for cold
  // code and scratch pages: measure() warms up every cell it times the same way. Nothing is logged, and
  // the caches are left empty.
  const ServedRequest& first = requests_[queue_[0]];
  rows_.clear();
  const int prompt_tokens = static_cast<int>(first.prompt.size());
  for (int i = 0; i < prompt_tokens; ++i) rows_.push_back(Row{first.prompt[i], &slots_[0].cache(), i, i == prompt_tokens - 1});
  forward();
  rows_.clear();
  for (Slot& slot : slots_) {
    slot.cache().length = 0;
    rows_.push_back(Row{first.prompt[0], &slot.cache(), 0, true});
  }
  forward();
  for (Slot& slot : slots_) slot.cache().length = 0;
}

bool Engine::next_has_arrived() const {
  return !queue_empty() && requests_[queue_[next_queued_]].state.request.arrival_ms <= clock_.now_ms();
}

void Engine::wait_for_next_arrival() {
  if (!queue_empty()) clock_.wait_until(requests_[queue_[next_queued_]].state.request.arrival_ms);
}

Slot* Engine::lowest_idle_slot() {
  for (Slot& slot : slots_)
    if (slot.state() == Slot::State::idle) return &slot;
  return nullptr;
}

void Engine::forward() {
  const float* logits = model_.forward(rows_);
  const int vocab = model_.config().vocab;
  tokens_.clear();
  for (const Row& row : rows_)
    if (row.want_logits) tokens_.push_back(kernels::argmax(logits + tokens_.size() * static_cast<size_t>(vocab), vocab));
}

void Engine::prefill(Slot& slot, ServedRequest& request) {
  const double start_ms = clock_.now_ms();
  const long long step = steps_run();
  slot.assign(request, start_ms, step);
  const int prompt_tokens = static_cast<int>(request.prompt.size());
  rows_.clear();
  for (int i = 0; i < prompt_tokens; ++i) rows_.push_back(Row{request.prompt[i], &slot.cache(), i, i == prompt_tokens - 1});
  forward();
  const double end_ms = clock_.now_ms();
  const int finished = slot.accept_token(tokens_[0], end_ms, step) ? 1 : 0;
  contexts_.assign(1, prompt_tokens);
  end_step(StepKind::prefill, start_ms, end_ms, finished);
}

void Engine::decode_step(const std::vector<Slot*>& rows) {
  const double start_ms = clock_.now_ms();
  const long long step = steps_run();
  rows_.clear();
  contexts_.clear();
  for (Slot* slot : rows) {
    if (slot->state() == Slot::State::idle) throw std::logic_error("decode step over idle slot " + std::to_string(slot->index()));
    rows_.push_back(slot->decode_row());
    if (rows_.back().position >= slot->cache().capacity)
      throw std::logic_error("decode step past the end of slot " + std::to_string(slot->index()) + "'s cache");
    contexts_.push_back(rows_.back().position + 1);
  }
  forward();
  const double end_ms = clock_.now_ms();
  int finished = 0;
  for (size_t i = 0; i < rows.size(); ++i) finished += rows[i]->accept_token(tokens_[i], end_ms, step) ? 1 : 0;
  end_step(StepKind::decode, start_ms, end_ms, finished);
}

void Engine::nocache_step(Slot& slot) {
  const double start_ms = clock_.now_ms();
  const long long step = steps_run();
  ServedRequest& request = slot.request();
  const int prompt_tokens = static_cast<int>(request.prompt.size());
  const int length = prompt_tokens + static_cast<int>(request.answer.size());
  slot.cache().length = 0;  // nothing is kept from the previous token
  rows_.clear();
  for (int i = 0; i < length; ++i) {
    const int token = i < prompt_tokens ? request.prompt[i] : request.answer[i - prompt_tokens];
    rows_.push_back(Row{token, &slot.cache(), i, i == length - 1});
  }
  forward();
  const double end_ms = clock_.now_ms();
  const int finished = slot.accept_token(tokens_[0], end_ms, step) ? 1 : 0;
  contexts_.assign(1, length);
  end_step(StepKind::nocache, start_ms, end_ms, finished);
}

void Engine::end_step(StepKind kind, double start_ms, double end_ms, int finished) {
  step_log_.add(kind, start_ms, end_ms, contexts_.data(), static_cast<int>(contexts_.size()));
  if (finished == 0) return;
  finished_count_ += static_cast<size_t>(finished);
  if (options_.progress && (end_ms - last_progress_ms_ >= kProgressEveryMs || finished_count_ == requests_.size())) {
    last_progress_ms_ = end_ms;
    options_.progress(finished_count_);
  }
}

}  // namespace kvlab::serve
