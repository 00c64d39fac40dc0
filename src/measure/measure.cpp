#include "measure/measure.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "common/rng.h"
#include "measure/monotone_grids.h"
#include "measure/step_timer.h"
#include "measure/thread_check.h"
#include "model/generate.h"
#include "model/kernels.h"
#include "model/model.h"
#include "model_files/token_pieces.h"

namespace kvlab {

using nlohmann::json;

namespace {

json timing_json(const StepTiming& t) {
  return {{"median", t.median_ms}, {"min", t.min_ms}, {"max", t.max_ms}, {"spread", t.spread}};
}

// Progress over Part A's runs and the grid, each weighted by its rough share of the run time.
class ProgressTracker {
 public:
  ProgressTracker(const ProgressFn& callback, const MeasureOptions& o) : callback_(callback) {
    // Relative costs in "decode steps": a no-cache answer reruns the growing sequence each token.
    nocache_run_ = o.answer_tokens * (o.prompt_tokens + o.answer_tokens / 2.0) / 4.0;
    cache_run_ = o.answer_tokens + o.prompt_tokens / 4.0;
    const double per_cell = (2.0 + o.timing.samples) * 10.0;  // calibration + samples, ~10 steps each
    grid_ = per_cell * static_cast<double>(grid_cells(o));
    answer_ = o.runs * (nocache_run_ + cache_run_);
  }

  // Part A with this many runs of each path done (fractions for a run in progress), in phase `name`.
  void answer(const std::string& name, double nocache_runs, double cache_runs) const {
    report((nocache_runs * nocache_run_ + cache_runs * cache_run_) / (answer_ + grid_), name);
  }

  // The grid, `fraction` of it done.
  void grid(const std::string& name, double fraction) const {
    report((answer_ + grid_ * fraction) / (answer_ + grid_), name);
  }

 private:
  void report(double fraction, const std::string& name) const {
    if (callback_) callback_(std::min(1.0, fraction), name);
  }

  const ProgressFn& callback_;
  double nocache_run_ = 0, cache_run_ = 0, grid_ = 0, answer_ = 0;
};

// The model's sizes; a preset by its name ("preset"), a model read from files by its name and
// source: "file" (its weights are the file's, not drawn from a seed).
json model_json(const MeasureOptions& o) {
  const ModelConfig& c = o.model;
  const ModelSize size = model_size(c);
  json description = {{"vocab", c.vocab},
                      {"d_model", c.d_model},
                      {"n_layers", c.n_layers},
                      {"n_heads", c.n_heads},
                      {"n_kv_heads", c.n_kv_heads},
                      {"head_dim", c.head_dim()},
                      {"d_ff", c.d_ff},
                      {"max_seq", c.max_seq},
                      {"seed", c.seed},
                      {"weights", number_format_name(c.weights)},
                      {"kv", number_format_name(c.kv)},
                      {"parameters", size.parameters},
                      {"weight_bytes", size.weight_bytes},
                      {"kv_bytes_per_token", size.kv_bytes_per_token},
                      {"instruction_set", kernels::instruction_set()},
                      {"kvlab_arch", kernels::arch_setting()}};
  if (o.file.model) {
    description["name"] = o.file.name;
    description["source"] = "file";
    description.erase("seed");
    // As the file's weights are held (a block format's blocks kept), not as float32 of its shape.
    const WeightStorage storage = weight_storage(o.file.model->weights());
    description["weight_bytes"] = storage.bytes;
    description["parameters"] = storage.parameters;
    description["weight_types"] = storage.matrices;
  } else {
    description["preset"] = o.preset;
  }
  // Said only when not 1, so that a one-thread result reads as it did before threads existed.
  if (o.threads != 1) description["threads"] = o.threads;
  return description;
}

// The run whose total is nearest the median of `totals_ms` (the one whose token times are reported).
size_t median_run(const std::vector<double>& totals_ms) {
  const double median = summarise(totals_ms).median_ms;
  size_t best = 0;
  for (size_t i = 1; i < totals_ms.size(); ++i)
    if (std::abs(totals_ms[i] - median) < std::abs(totals_ms[best] - median)) best = i;
  return best;
}

// One path of Part A answered `runs` times: the tokens of its first run, the total of each run, and
// the time (ms since the run's start) at which each token of each run was ready.
struct PathRuns {
  std::vector<int> tokens;
  std::vector<double> totals_ms;              // [runs] one answer's time: the run's mean over its repeats
  std::vector<std::vector<double>> token_ms;  // [runs][answer_tokens] each token's mean arrival time
  std::vector<int> repeats;                   // [runs] answers generated to make the run last min_sample_ms
  bool identical = true;                      // every answer gave the same tokens as the first no-cache one
  bool retimed = false;                       // its first runs spread wide: these are a second set

  // Forgets the runs' times (not the tokens, nor whether every answer agreed) to time the path again.
  void time_again() {
    totals_ms.clear();
    token_ms.clear();
    repeats.clear();
    retimed = true;
  }
};

// Part A's figures from the runs so far: each path's median, min, max and spread, whether either path is
// noisy (its runs spread wider than kNoisySpread after timing it again), the ratio, the tokens, and
// the token times of each path's median run, so that a page can replay the two paths racing.
// On a model with a tokenizer, also the prompt's text and the answer's words: one piece per token of
// the no-cache path's first answer (the reference the other answers are checked against).
json answer_json(const MeasureOptions& o, const std::vector<int>& prompt, const PathRuns& nocache_runs,
                 const PathRuns& cache_runs) {
  StepTiming nocache = summarise(nocache_runs.totals_ms), cached = summarise(cache_runs.totals_ms);
  json answer = {{"prompt_tokens", o.prompt_tokens},
                 {"answer_tokens", o.answer_tokens},
                 {"runs", static_cast<int>(nocache_runs.totals_ms.size())},
                 {"nocache_ms", timing_json(nocache)},
                 {"cache_ms", timing_json(cached)},
                 {"repeats_nocache", nocache_runs.repeats},
                 {"repeats_cache", cache_runs.repeats},
                 {"ratio", nocache.median_ms / cached.median_ms},
                 {"noisy", nocache.noisy() || cached.noisy()},
                 {"retimed", nocache_runs.retimed || cache_runs.retimed},
                 {"identical_tokens", nocache_runs.identical && cache_runs.identical},
                 {"prompt", prompt},
                 {"tokens_nocache", nocache_runs.tokens},
                 {"tokens_cache", cache_runs.tokens},
                 {"token_ms_nocache", nocache_runs.token_ms[median_run(nocache_runs.totals_ms)]},
                 {"token_ms_cache", cache_runs.token_ms[median_run(cache_runs.totals_ms)]}};
  if (o.file.tokenizer) {
    answer["prompt_text"] = o.prompt_text;
    answer["pieces"] = token_pieces(*o.file.tokenizer, prompt.back(), nocache_runs.tokens);
  }
  return answer;
}

// One run of a path: the answer generated again until the run lasts at least min_sample_ms, so that a
// coarse clock (a browser's ticks 0.1-1 ms apart) still times a small model's answer; a default-sized
// answer lasts far longer and is generated once. `generate(repeat, on_token)` returns the tokens; every
// repeat's tokens are compared with `first_answer`, the first answer of Part A (a no-cache one), which
// the very first repeat sets.
template <typename Generate>
void time_run(PathRuns& runs, std::vector<int>& first_answer, const MeasureOptions& o, Generate generate) {
  std::vector<double> token_sum_ms(o.answer_tokens, 0.0);
  const RepeatedRuns repeated = repeat_until(o.timing.min_sample_ms, [&](int repeat) {
    const double answer_start = now_ms();
    std::vector<int> tokens = generate(repeat, [&](int k) { token_sum_ms[k - 1] += now_ms() - answer_start; });
    if (first_answer.empty()) first_answer = tokens;
    if (runs.tokens.empty()) runs.tokens = tokens;
    runs.identical = runs.identical && tokens == first_answer;
  });
  for (double& t : token_sum_ms) t /= repeated.runs;
  runs.totals_ms.push_back(repeated.elapsed_ms / repeated.runs);
  runs.token_ms.push_back(std::move(token_sum_ms));
  runs.repeats.push_back(repeated.runs);
}

// Part A: the same prompt answered without and with the cache, `runs` times each, the paths taking turns
// (so that both spread over the same seconds of the machine's drift); the first turn gives one answer's
// ratio early ("first_answer" to `on_part`, with runs = 1). A path whose runs spread wider than
// kNoisySpread is answered `runs` times again, taking turns with the other if it is wide too, and the
// new runs replace its first ones. Every answer's tokens are checked against the first no-cache answer.
json measure_answer(Model& model, const MeasureOptions& o, const ProgressTracker& progress, const PartFn& on_part) {
  const std::vector<int> prompt =
      o.prompt.empty() ? make_prompt(o.prompt_tokens, o.model.vocab, o.prompt_seed) : o.prompt;
  KvCache cache(o.model, o.prompt_tokens + o.answer_tokens);
  PathRuns nocache_runs, cache_runs;
  std::vector<int> first_answer;
  double nocache_done = 0, cache_done = 0;
  // Runs timed again report no progress: the estimate has no room for them, and progress never goes back.
  bool timing_again = false;

  auto run_nocache = [&] {
    time_run(nocache_runs, first_answer, o, [&](int repeat, auto on_token) {
      return generate_without_cache(model, cache, prompt, o.answer_tokens, nullptr, [&](int k) {
        on_token(k);
        // Reported every few tokens of the first repeat: this path is most of Part A.
        if (repeat == 0 && k % 4 == 0 && !timing_again)
          progress.answer("no-cache answers", nocache_done + static_cast<double>(k) / o.answer_tokens, cache_done);
      });
    });
    if (!timing_again) nocache_done += 1;
  };
  auto run_cache = [&] {
    if (!timing_again) progress.answer("KV-cache answers", nocache_done, cache_done);
    time_run(cache_runs, first_answer, o, [&](int, auto on_token) {
      return generate_with_cache(model, cache, prompt, o.answer_tokens, nullptr, on_token);
    });
    if (!timing_again) cache_done += 1;
  };

  run_nocache();
  run_cache();
  if (on_part) on_part("first_answer", answer_json(o, prompt, nocache_runs, cache_runs));
  for (int run = 1; run < o.runs; ++run) {
    run_nocache();
    run_cache();
  }
  const bool nocache_wide = summarise(nocache_runs.totals_ms).noisy();
  const bool cache_wide = summarise(cache_runs.totals_ms).noisy();
  if (nocache_wide) nocache_runs.time_again();
  if (cache_wide) cache_runs.time_again();
  timing_again = true;
  for (int run = 0; run < o.runs && (nocache_wide || cache_wide); ++run) {
    if (nocache_wide) run_nocache();
    if (cache_wide) run_cache();
  }
  return answer_json(o, prompt, nocache_runs, cache_runs);
}

}  // namespace

json model_info(const MeasureOptions& options) { return model_json(options); }

MeasuredModel::MeasuredModel(const MeasureOptions& options)
    : preset_model_(options.file.model ? nullptr : std::make_unique<Model>(options.model)),
      model_(options.file.model ? options.file.model : preset_model_.get()) {
  model_->set_threads(options.threads);
}

RepeatableDecodeRows::RepeatableDecodeRows(Model& model, const ModelConfig& config, int max_rows, int max_context,
                                           uint64_t seed)
    : caches_(static_cast<size_t>(max_rows), KvCache(config, max_context)),
      history_(make_prompt(max_context, config.vocab, seed)) {
  if (max_context > 1) prefill(model, caches_[0], history_.data(), max_context - 1, 0);
  for (KvCache& cache : caches_) cache = caches_[0];
}

std::vector<Row> RepeatableDecodeRows::rows(int n_rows, int context) {
  std::vector<Row> rows;
  for (int r = 0; r < n_rows; ++r)
    rows.push_back(
        Row{history_[static_cast<size_t>(context - 1)], &caches_[static_cast<size_t>(r)], context - 1, true});
  return rows;
}

namespace {

// One grid's values in the table's layout: value(timing) as values[i0][i1]... over `shape` (outermost
// first), taken in order from `timings` starting at `cell`.
template <class Value>
json grid_values(const std::vector<StepTiming>& timings, size_t& cell, const std::vector<size_t>& shape, Value value,
                 size_t level = 0) {
  if (level == shape.size()) return value(timings[cell++]);
  json values = json::array();
  for (size_t i = 0; i < shape[level]; ++i) values.push_back(grid_values(timings, cell, shape, value, level + 1));
  return values;
}

// One grid's `name`_repeats and `name`_spread, in the table's layout, from `timings` starting at `cell`.
void add_grid_timing(json& timing, const std::string& name, const std::vector<StepTiming>& timings, size_t cell,
                     const std::vector<size_t>& shape) {
  size_t repeats_cell = cell;
  timing[name + "_repeats"] = grid_values(timings, repeats_cell, shape, [](const StepTiming& t) { return t.repeats; });
  timing[name + "_spread"] = grid_values(timings, cell, shape, [](const StepTiming& t) { return t.spread; });
}

// The cells' figures (their trimmed means), in order from `timings` starting at `cell`: `count` of them.
std::vector<double> cell_figures(const std::vector<StepTiming>& timings, size_t& cell, size_t count) {
  std::vector<double> ms;
  for (size_t i = 0; i < count; ++i) ms.push_back(timings[cell++].trimmed_mean_ms);
  return ms;
}

// The grids of `o` with the figures of `timings`, in the order timed: decode, prefill, mixed; each row-major.
sim::StepGrids timed_grids(const MeasureOptions& o, const std::vector<StepTiming>& timings) {
  sim::StepGrids grids;
  size_t cell = 0;
  grids.decode_rows = o.decode_rows;
  grids.decode_contexts = o.decode_contexts;
  grids.decode_ms = cell_figures(timings, cell, o.decode_rows.size() * o.decode_contexts.size());
  grids.prefill_tokens = o.prefill_tokens;
  grids.prefill_ms = cell_figures(timings, cell, o.prefill_tokens.size());
  if (o.mixed_grid) {
    grids.mixed_chunk_tokens = o.mixed_chunk_tokens;
    grids.mixed_rows = o.mixed_rows;
    grids.mixed_contexts = o.mixed_contexts;
    grids.mixed_ms = cell_figures(timings, cell, timings.size() - cell);
  }
  return grids;
}

// The cells still wider than kNoisySpread, with their place in their grid (timed_grids' order).
json noisy_cells_json(const MeasureOptions& o, const std::vector<StepTiming>& timings) {
  json cells = json::array();
  size_t cell = 0;
  for (int rows : o.decode_rows)
    for (int context : o.decode_contexts) {
      const StepTiming& t = timings[cell++];
      if (t.noisy()) cells.push_back({{"grid", "decode"}, {"rows", rows}, {"context", context}, {"spread", t.spread}});
    }
  for (int tokens : o.prefill_tokens) {
    const StepTiming& t = timings[cell++];
    if (t.noisy()) cells.push_back({{"grid", "prefill"}, {"tokens", tokens}, {"spread", t.spread}});
  }
  if (o.mixed_grid)
    for (int chunk_tokens : o.mixed_chunk_tokens)
      for (int rows : o.mixed_rows)
        for (int context : o.mixed_contexts) {
          const StepTiming& t = timings[cell++];
          if (t.noisy())
            cells.push_back({{"grid", "mixed"},
                             {"chunk_tokens", chunk_tokens},
                             {"rows", rows},
                             {"context", context},
                             {"spread", t.spread}});
        }
  return cells;
}

json corrections_json(const std::vector<MonotoneCorrection>& corrections) {
  json list = json::array();
  for (const MonotoneCorrection& c : corrections) {
    json entry = {{"grid", c.grid}};
    if (c.grid == "decode") {
      entry["rows"] = c.rows;
      entry["context"] = c.context;
    } else {
      entry["tokens"] = c.tokens;
    }
    entry["measured_ms"] = c.measured_ms;
    entry["corrected_ms"] = c.corrected_ms;
    list.push_back(entry);
  }
  return list;
}

}  // namespace

// The step-time grids, timed together (time_steps_interleaved) so that every cell spans the same seconds
// of the machine's drift: decode steps of r rows, every row at context c, for each (r, c); a prefill of
// L tokens from an empty cache for each L; and mixed steps, shaped as the engine's mixed_step: r decode
// rows at context c, then a prompt chunk of k tokens from position 0 (the chunk's last row gives a token),
// for each (k, r, c). Each decode row has its own cache, filled once with a real prefill; a timed step
// rewrites position c-1 (and the chunk positions [0, k) of its own cache), so it can be repeated, in any
// order. Each cell's figure is the trimmed mean of its samples (docs/benchmarks.md, "Figures that repeat"):
// the simulator adds step costs up, so a mean, without the one sample in five that another process
// stretched. Cells whose samples spread wide were timed again (time_steps_interleaved); then the cells of
// a pair where more work took less time are timed again, and what still decreases is made monotone
// (monotone_grids.h), the correction recorded.
sim::StepTable measure_steps(Model& model, const MeasureOptions& o, const ProgressFn& progress) {
  return measure_steps(model, o, progress, nullptr);
}

sim::StepTable measure_steps(Model& model, const MeasureOptions& o, const ProgressFn& progress,
                             const json& thread_check) {
  const LargestMixedStep mixed = largest_mixed_step(o);
  const int max_rows = std::max(o.decode_rows.back(), mixed.rows);
  const int max_context = std::max(o.decode_contexts.back(), mixed.context);
  const int max_tokens = std::max(o.prefill_tokens.back(), mixed.chunk_tokens);
  RepeatableDecodeRows decode_rows(model, o.model, max_rows, max_context, o.prompt_seed + 1);
  KvCache prefill_cache(o.model, max_tokens);
  const std::vector<int> prefill_ids = make_prompt(max_tokens, o.model.vocab, o.prompt_seed + 2);
  model.reserve_rows(std::max({max_rows, max_tokens, mixed.rows + mixed.chunk_tokens}));

  // Shape: [decode_rows.size() * decode_contexts.size()] row lists, row-major over (rows, context), then
  // [mixed_chunk_tokens.size() * mixed_rows.size() * mixed_contexts.size()] over (chunk, rows, context).
  std::vector<std::vector<Row>> batches;
  for (int n_rows : o.decode_rows)
    for (int context : o.decode_contexts) batches.push_back(decode_rows.rows(n_rows, context));
  const size_t decode_cells = batches.size();
  if (o.mixed_grid)
    for (int chunk_tokens : o.mixed_chunk_tokens)
      for (int n_rows : o.mixed_rows)
        for (int context : o.mixed_contexts) {
          std::vector<Row> rows = decode_rows.rows(n_rows, context);
          for (int i = 0; i < chunk_tokens; ++i)
            rows.push_back(Row{prefill_ids[i], &prefill_cache, i, i == chunk_tokens - 1});
          batches.push_back(std::move(rows));
        }
  std::vector<std::function<void()>> steps;
  // Greedy passes, as the engine runs them: on the model's device when it has one.
  std::vector<int> tokens;
  tokens.reserve(static_cast<size_t>(max_rows) + 1);  // a mixed step's chunk gives one more
  for (size_t b = 0; b < decode_cells; ++b)
    steps.push_back([&model, &rows = batches[b], &tokens] { model.greedy_tokens(rows, tokens); });
  for (int n : o.prefill_tokens)
    steps.push_back(
        [&model, &prefill_cache, &prefill_ids, n] { prefill(model, prefill_cache, prefill_ids.data(), n, 0); });
  for (size_t b = decode_cells; b < batches.size(); ++b)
    steps.push_back([&model, &rows = batches[b], &tokens] { model.greedy_tokens(rows, tokens); });

  std::vector<StepTiming> timings = time_steps_interleaved(steps, o.timing, [&](double fraction) {
    if (progress) progress(fraction, "step grid");
  });
  sim::StepGrids grids = timed_grids(o, timings);
  const std::vector<size_t> decreasing = decreasing_cells(grids);
  if (!decreasing.empty()) {
    retime_cells(steps, decreasing, o.timing, timings);
    grids = timed_grids(o, timings);
  }
  const std::vector<MonotoneCorrection> corrections = make_monotone(grids);

  json model_description = model_json(o);
  if (!thread_check.is_null()) model_description["thread_check"] = thread_check;
  json& timing = model_description["timing"] = {
      {"min_sample_ms", o.timing.min_sample_ms},
      {"samples", o.timing.samples},
      {"statistic", "20% trimmed mean of samples taken round-robin across the grid (one sample of every cell a round)"},
      {"noisy_spread", kNoisySpread},
      {"retimed_cells", std::count_if(timings.begin(), timings.end(), [](const StepTiming& t) { return t.retimed; })},
      {"noisy_cells", noisy_cells_json(o, timings)},
      {"decreasing_retimed_cells", decreasing.size()},
      {"monotone_corrections", corrections_json(corrections)}};
  add_grid_timing(timing, "decode", timings, 0, {o.decode_rows.size(), o.decode_contexts.size()});
  add_grid_timing(timing, "prefill", timings, decode_cells, {o.prefill_tokens.size()});
  if (o.mixed_grid)
    add_grid_timing(timing, "mixed", timings, decode_cells + o.prefill_tokens.size(),
                    {o.mixed_chunk_tokens.size(), o.mixed_rows.size(), o.mixed_contexts.size()});
  return sim::StepTable(std::move(grids), std::move(model_description));
}

Measurement measure(const MeasureOptions& options, const ProgressFn& callback, const PartFn& on_part) {
  ProgressTracker progress(callback, options);
  MeasuredModel measured(options);
  Model& model = measured.model();
  // The whole measurement runs on the threads the check chose.
  MeasureOptions o = options;
  json thread_check = nullptr;
  if (o.threads > 1 && o.thread_check) {
    const ThreadChoice choice = check_threads(model, o.threads, o.timing);
    o.threads = choice.used;
    thread_check = choice.to_json();
  }
  json answer = measure_answer(model, o, progress, on_part);
  if (on_part) on_part("answer", answer);
  sim::StepTable steps = measure_steps(
      model, o, [&](double fraction, const std::string& phase) { progress.grid(phase, fraction); }, thread_check);
  if (on_part) on_part("steps", steps.to_json());
  if (callback) callback(1.0, "done");
  return {std::move(answer), std::move(steps)};
}

}  // namespace kvlab
