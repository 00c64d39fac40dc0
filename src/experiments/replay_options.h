#pragma once
// What `replay` runs: the measurement (model, step grid, timing), the workload, the policies, and how
// many requests the slow serial-nocache replays. Read from a JSON object (the Embind options object, or
// built from CLI flags) and checked in full before anything is measured.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/measure_options.h"
#include "policy/request.h"
#include "sim/simulate.h"

namespace kvlab::experiments {

struct ReplayOptions {
  MeasureOptions measure;                 // the step grid's options (Part A is not run): measure()'s defaults,
                                          // but, unless given, decode rows 1..B for the largest B of the policies;
                                          // measure.file: the model read from files that is served, if any
  std::vector<policy::Request> requests;  // the workload's requests (generated or explicit), in workload order
  // On a model with a tokenizer, the story openings it encodes (model_files/story_prompts.h), which a story
  // workload's requests are served with; empty otherwise.
  std::vector<std::vector<int>> story_prompts;
  std::vector<sim::NamedPolicy> policies;  // parsed where read: distinct, in the order given
  // serial-nocache reruns the whole sequence for every token (about 10x the work of serial-cache on the
  // default workload), so it replays only the first this many requests, real and simulated alike.
  int nocache_requests = 16;
  uint64_t prompt_seed = 1;    // request i's prompt is make_prompt(p_i, vocab, prompt_seed + i)
  int timeline_requests = 60;  // requests in each slot timeline, real and simulated
  // The KV memory of reserve, paged and chunked, real and simulated alike (the simulator's options):
  // a budget in tokens (none: no limit) and the block size.
  std::optional<long long> kv_tokens;
  int block_tokens = 16;
  // Rounds of each cell in measuring passes by what ran before them (measure_pass_history.h: the
  // after-prompt and prompt-pass parts), once per replay; 0: the tables carry neither part and price
  // every pass at its grid price.
  int after_prompt_rounds = 8;
  // The field that sets how many requests there are, for errors: a generated queue's count, else the
  // workload's list.
  std::string requests_field = "options.workload.count";
};

// The simulator's options for replaying `options`: its timeline and KV memory.
sim::SimulateOptions simulate_options(const ReplayOptions& options);

// 64 requests at t = 0, prompts 8-32, answers 16-48 (seed 1): about 10 s of real serving natively. On a
// model with a tokenizer (file.tokenizer), the prompts are story openings ("prompts": "stories").
nlohmann::json default_replay_workload(const FileModelRef& file = {});
// The slots (batch rows) of the default replay policies: small enough that a replay of the default workload
// takes seconds, large enough that batching shows.
constexpr int kReplaySlots = 8;
// serial-nocache, serial-cache, static:kReplaySlots, continuous:kReplaySlots.
std::vector<std::string> default_replay_policies();

// { "measure", "workload", "policies", "nocache_requests", "prompt_seed", "timeline_requests", "kv_tokens",
// "block_tokens", "after_prompt_rounds" }, every field optional. Throws InputError naming the field. With
// `file`, the replay serves that model (read_measure_options), and a workload may draw on its stories.
ReplayOptions read_replay_options(const nlohmann::json& object, const std::string& path = "options",
                                  const FileModelRef& file = {});

// The real serving of one replay, every policy's run together, priced before any request is served on
// the step table measured at its start (each run lasts about its simulated makespan): 30 minutes.
constexpr double kMaxReplayServingMs = 30 * 60'000.0;

// Refuses a replay whose runs would serve for more than `limit_ms` in all: `simulated_ms[i]` is the
// simulated makespan of options.policies[i]. The error names the field that drives the longest run
// (nocache_requests for a policy without a cache, else the request count), the estimate per policy, and
// about how many requests would fit.
void check_serving_time(const ReplayOptions& options, const std::vector<double>& simulated_ms,
                        double limit_ms = kMaxReplayServingMs);

// The requests `policy` replays: the first nocache_requests for serial-nocache, else all.
std::vector<policy::Request> requests_for(const ReplayOptions& options, const policy::PolicyName& policy);

// Fields understood by read_replay_options, for help texts.
extern const char* const kReplayOptionFields;

}  // namespace kvlab::experiments
