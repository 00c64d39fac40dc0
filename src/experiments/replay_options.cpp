#include "experiments/replay_options.h"

#include <algorithm>
#include <cmath>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/text_format.h"
#include "model/config.h"
#include "model_files/story_prompts.h"
#include "policy/policy_registry.h"
#include "serve/engine.h"
#include "serve/prompts.h"
#include "serve/run_engine.h"
#include "sim/workload.h"

namespace kvlab::experiments {

using nlohmann::json;

const char* const kReplayOptionFields =
    "measure {...}, workload, policies, nocache_requests, prompt_seed, timeline_requests, kv_tokens, block_tokens, after_prompt_rounds";

namespace {

// Real serving takes real time: about 10 s natively for the default 64 requests, and twice that in wasm.
constexpr size_t kMaxReplayRequests = 4096;
// The real waits for arrivals of one replay, every policy's run together (check_arrival_waits).
constexpr double kMaxReplayWaitMs = 60'000;

// The engine allocates min(B, requests) KV caches of the workload's longest p + n - 1 positions; and each
// policy must be able to serve the workload in its KV memory.
void check_engine_memory(const ReplayOptions& o, const std::string& path) {
  const int64_t kv_bytes_per_token = model_size(o.measure.model).kv_bytes_per_token;
  const int64_t positions = policy::cache_positions(o.requests);
  const policy::KvSettings kv = sim::kv_settings(simulate_options(o));
  for (size_t i = 0; i < o.policies.size(); ++i) {
    const std::string policy_path = fields::join(path, "policies") + "[" + std::to_string(i) + "]";
    const policy::PolicyName& policy = o.policies[i].policy;
    const std::unique_ptr<policy::Scheduler> scheduler = policy::make_scheduler(policy, kv);
    scheduler->check(requests_for(o, policy));
    const int slots = serve::engine_slots(scheduler->slots(), o.requests.size());
    const int64_t kv_positions = policy.traits().keeps_kv_in_blocks
                                     ? policy::kv_pool_blocks(o.requests, slots, kv) * kv.block_tokens
                                     : slots * positions;
    const int64_t bytes = held_weight_bytes(o.measure) + kv_positions * kv_bytes_per_token;
    if (bytes > kMaxMeasureBytes)
      throw_range({policy_path, "\"" + o.policies[i].name + "\"", {}},
                  "\"" + o.policies[i].name + "\" needs " + std::to_string(bytes >> 20) +
                      " MiB for weights and KV caches (at most " + std::to_string(kMaxMeasureBytes >> 20) +
                      " MiB): use a smaller B, model or workload");
  }
}

// The engine waits for each arrival in real time (natively asleep, in wasm spinning a core), under every
// policy in turn: the waits of a replay are bounded in all, so that none runs on for minutes unasked.
void check_arrival_waits(const ReplayOptions& o, const json& workload, const std::string& workload_path) {
  size_t last = 0;
  for (size_t i = 0; i < o.requests.size(); ++i)
    if (o.requests[i].arrival_ms > o.requests[last].arrival_ms) last = i;
  const double runs = static_cast<double>(o.policies.size());
  const double wait_ms = o.requests[last].arrival_ms * runs;
  if (wait_ms <= kMaxReplayWaitMs) return;
  const double latest_ms = kMaxReplayWaitMs / runs;
  const bool explicit_requests = workload.contains("requests");
  const std::string path = explicit_requests ? workload_path + ".requests[" + std::to_string(last) + "].arrival_ms"
                                             : fields::join(workload_path, "arrival.rate_per_s");
  const std::string arrival = std::to_string(static_cast<long long>(o.requests[last].arrival_ms));
  throw_range({path, explicit_requests ? arrival : "", explicit_requests ? numbers_from(0, latest_ms) : Allowed{}},
              ": the last request arrives at " + arrival +
                  " ms, and the engine waits for arrivals in real time under each of the " +
                  std::to_string(o.policies.size()) + " policies: at most " +
                  std::to_string(static_cast<long long>(kMaxReplayWaitMs)) + " ms of arrivals in all, so the last at " +
                  std::to_string(static_cast<long long>(latest_ms)) + " ms (" +
                  (explicit_requests ? "use earlier arrivals" : "use a higher rate or fewer requests") + ")");
}

}  // namespace

json default_replay_workload(const FileModelRef& file) {
  json workload = {
      {"count", 64}, {"prompt", {8, 32}}, {"answer", {16, 48}}, {"arrival", {{"kind", "all-at-zero"}}}, {"seed", 1}};
  if (file.tokenizer) {
    workload.erase("prompt");
    workload["prompts"] = "stories";
  }
  return workload;
}

std::vector<std::string> default_replay_policies() { return policy::default_policies(kReplaySlots); }

ReplayOptions read_replay_options(const json& object, const std::string& path, const FileModelRef& file) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path,
                         {"measure", "workload", "policies", "nocache_requests", "prompt_seed", "timeline_requests",
                          "kv_tokens", "block_tokens", "after_prompt_rounds"});
  ReplayOptions o;
  // Part A (one answer with and without the cache) is not run: replay times the grid alone
  // (measure_steps). Its fields are read as measure() reads them, and default to the smallest
  // lengths so that they bound nothing (the memory estimate, the model's max_seq). A model with a
  // tokenizer takes its prompt as text (a story opening), not as a length.
  json measure = {{"runs", 1}, {"answer_tokens", 1}};
  if (!file.tokenizer) measure["prompt_tokens"] = 1;
  if (object.contains("measure"))
    measure.update(fields::require_object(object["measure"], fields::join(path, "measure")));
  const std::string policies_path = fields::join(path, "policies");
  o.policies =
      sim::parse_policies(object.contains("policies") ? policy::read_policy_names(object["policies"], policies_path)
                                                      : default_replay_policies(),
                          policies_path);
  int largest_batch = 2;
  bool mixed_steps = false;
  for (const sim::NamedPolicy& named : o.policies) {
    largest_batch = std::max(largest_batch, policy::make_scheduler(named.policy)->slots());
    mixed_steps = mixed_steps || named.policy.traits().runs_mixed_steps;
  }
  // Every decode row count the engine will run, when the caller gives none and there are at most 16 (a
  // grid's limit): a step's cost is not linear between grid points, since the kernels block rows in
  // groups. Larger batches keep measure()'s grid, which the simulator extrapolates.
  if (!measure.contains("decode_rows") && largest_batch <= 16) {
    std::vector<int> rows;
    for (int r = 1; r <= largest_batch; ++r) rows.push_back(r);
    measure["decode_rows"] = rows;
  }
  o.measure = read_measure_options(measure, fields::join(path, "measure"), file);
  // The mixed grid only where a policy is priced on it (or the caller asked for its cells).
  o.measure.mixed_grid = mixed_steps || measure.contains("mixed_chunk_tokens") || measure.contains("mixed_rows") ||
                         measure.contains("mixed_contexts");
  const std::string workload_path = fields::join(path, "workload");
  if (file.tokenizer) o.story_prompts = encode_story_openings(*file.tokenizer);
  const json workload = object.value("workload", default_replay_workload(file));
  o.requests = sim::read_workload(workload, workload_path, token_counts(o.story_prompts));
  o.requests_field = workload.contains("count") ? workload_path + ".count" : workload_path;
  // A generated queue's size is its count (a flag, for the CLI): the error names that field.
  if (o.requests.size() > kMaxReplayRequests && workload.contains("count"))
    throw_range({workload_path + ".count", std::to_string(o.requests.size()),
                 integers_from(1, static_cast<long long>(kMaxReplayRequests))},
                "must be an integer from 1 to " + std::to_string(kMaxReplayRequests) +
                    " for a replay, which serves each request in real time (got " + std::to_string(o.requests.size()) +
                    ")");
  if (o.requests.size() > kMaxReplayRequests)
    throw_range({workload_path, std::to_string(o.requests.size()), {}},
                "has " + std::to_string(o.requests.size()) + " requests: the engine replays at most " +
                    std::to_string(kMaxReplayRequests) + " (each takes real time)");
  check_arrival_waits(o, object.value("workload", default_replay_workload()), workload_path);
  serve::check_workload_fits(o.measure.model, o.requests, workload_path);
  serve::check_chat_turns(o.requests, workload_path);
  o.nocache_requests = static_cast<int>(fields::read_int(object, path, "nocache_requests", o.nocache_requests, 1,
                                                         static_cast<long long>(kMaxReplayRequests)));
  o.prompt_seed = static_cast<uint64_t>(fields::read_int(object, path, "prompt_seed", 1, 0, 1LL << 52));
  o.timeline_requests =
      static_cast<int>(fields::read_int(object, path, "timeline_requests", o.timeline_requests, 0, 1000));
  o.after_prompt_rounds =
      static_cast<int>(fields::read_int(object, path, "after_prompt_rounds", o.after_prompt_rounds, 0, 200));
  // The simulator's own reading of the KV fields, so a budget means the same and fails the same way.
  nlohmann::json kv_fields = nlohmann::json::object();
  for (const char* key : {"kv_tokens", "block_tokens"})
    if (object.contains(key)) kv_fields[key] = object[key];
  const sim::SimulateOptions kv_options = sim::read_simulate_options(kv_fields, path);
  o.kv_tokens = kv_options.kv_tokens;
  o.block_tokens = kv_options.block_tokens;
  check_engine_memory(o, path);
  return o;
}

sim::SimulateOptions simulate_options(const ReplayOptions& options) {
  sim::SimulateOptions simulate;
  simulate.timeline_requests = options.timeline_requests;
  simulate.kv_tokens = options.kv_tokens;
  simulate.block_tokens = options.block_tokens;
  return simulate;
}

void check_serving_time(const ReplayOptions& o, const std::vector<double>& simulated_ms, double limit_ms) {
  double total_ms = 0;
  size_t longest = 0;
  std::vector<std::string> runs;
  for (size_t i = 0; i < simulated_ms.size(); ++i) {
    total_ms += simulated_ms[i];
    if (simulated_ms[i] > simulated_ms[longest]) longest = i;
    runs.push_back(o.policies[i].name + " " + format("%.1f", simulated_ms[i] / 60'000) + " min");
  }
  if (total_ms <= limit_ms) return;
  // The longest run's requests drive the time: about as many of them fit as its share of what the other
  // runs leave (a run's time grows at least in proportion to its requests).
  const bool uncached = !o.policies[longest].policy.traits().caches_kv;
  const size_t requests = requests_for(o, o.policies[longest].policy).size();
  const double left_ms = limit_ms - (total_ms - simulated_ms[longest]);
  const double fitting = std::floor(static_cast<double>(requests) * left_ms / simulated_ms[longest]);
  const std::string field = uncached ? "options.nocache_requests" : o.requests_field;
  const std::string fewer = fitting >= 1 ? "about " + grouped(static_cast<unsigned long long>(fitting)) + " would fit"
                                         : "not even one fits: use a smaller model or fewer, shorter requests";
  throw_range({field, std::to_string(requests), {}},
              "= " + std::to_string(requests) + (requests == 1 ? " request" : " requests") + " for " +
                  o.policies[longest].name + ": serving every run would take " + format("%.1f", total_ms / 60'000) +
                  " min on this machine (" + comma_list(runs) +
                  ", priced on the step table just measured), and a replay serves at most " +
                  format("%.0f", limit_ms / 60'000) + " min in all (" + fewer + ")");
}

std::vector<policy::Request> requests_for(const ReplayOptions& options, const policy::PolicyName& policy) {
  if (policy.traits().caches_kv) return options.requests;
  const size_t count = std::min(options.requests.size(), static_cast<size_t>(options.nocache_requests));
  return {options.requests.begin(), options.requests.begin() + static_cast<std::ptrdiff_t>(count)};
}

}  // namespace kvlab::experiments
