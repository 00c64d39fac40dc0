#include "sim/workload.h"

#include <tuple>
#include <utility>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/rng.h"
#include "sim/portable_log.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

constexpr long long kMaxRequests = 1'000'000;
constexpr long long kMaxTokens = 1'000'000;  // per prompt, per answer
// Every answer token is at least one simulated row-step, so this bounds the work of a simulation.
constexpr long long kMaxTotalAnswerTokens = 100'000'000;
constexpr double kMaxArrivalMs = 1e12;
constexpr double kMinRatePerS = 1e-6, kMaxRatePerS = 1e9;
constexpr long long kMaxSeed = (1ll << 53) - 1;  // exact in a JS number

// An inclusive [lo, hi] token range such as "prompt": [8, 32].
std::pair<int, int> read_token_range(const nlohmann::json& object, const std::string& path, const char* name) {
  std::string field = fields::join(path, name);
  const auto& value = require_field(object, path, name);
  if (!value.is_array() || value.size() != 2)
    throw_type(field + " must be a range [lo, hi] of two integers (got " + value.dump() + ")");
  auto bounds = fields::read_int_list(object, path, name, {}, 1, kMaxTokens, 2, false);
  if (bounds[0] > bounds[1])
    throw_range(field + " must be a range [lo, hi] with lo <= hi (got " + value.dump() + ")");
  return {bounds[0], bounds[1]};
}

GeneratedWorkload read_generated(const nlohmann::json& workload, const std::string& path) {
  fields::reject_unknown(workload, path, {"count", "prompt", "answer", "arrival", "seed"});
  GeneratedWorkload generated;
  require_field(workload, path, "count");
  generated.count = static_cast<int>(fields::read_int(workload, path, "count", 0, 1, kMaxRequests));
  std::tie(generated.prompt_tokens_lo, generated.prompt_tokens_hi) = read_token_range(workload, path, "prompt");
  std::tie(generated.answer_tokens_lo, generated.answer_tokens_hi) = read_token_range(workload, path, "answer");
  generated.seed = static_cast<uint64_t>(fields::read_int(workload, path, "seed", 1, 0, kMaxSeed));

  auto arrival_it = workload.find("arrival");
  if (arrival_it == workload.end()) return generated;  // all at t = 0
  std::string arrival_path = fields::join(path, "arrival");
  const auto& arrival = fields::require_object(*arrival_it, arrival_path);
  require_field(arrival, arrival_path, "kind");
  std::string kind = fields::read_string(arrival, arrival_path, "kind", "");
  if (kind == "all-at-zero") {
    fields::reject_unknown(arrival, arrival_path, {"kind"});
  } else if (kind == "poisson") {
    fields::reject_unknown(arrival, arrival_path, {"kind", "rate_per_s"});
    generated.arrival = ArrivalKind::poisson;
    require_field(arrival, arrival_path, "rate_per_s");
    generated.rate_per_s = fields::read_number(arrival, arrival_path, "rate_per_s", 0, kMinRatePerS, kMaxRatePerS);
  } else {
    throw_range(arrival_path + ".kind must be \"all-at-zero\" or \"poisson\" (got \"" + kind + "\")");
  }
  return generated;
}

std::vector<Request> read_explicit(const nlohmann::json& workload, const std::string& path) {
  fields::reject_unknown(workload, path, {"requests"});
  std::string list_path = fields::join(path, "requests");
  const auto& list = workload.at("requests");
  if (!list.is_array() || list.empty() || list.size() > static_cast<size_t>(kMaxRequests))
    throw_type(list_path + " must be a list of 1 to " + std::to_string(kMaxRequests) + " requests");
  std::vector<Request> requests;
  requests.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    std::string item_path = list_path + "[" + std::to_string(i) + "]";
    const auto& item = fields::require_object(list[i], item_path);
    fields::reject_unknown(item, item_path, {"arrival_ms", "prompt", "answer"});
    Request request;
    request.arrival_ms = fields::as_number(require_field(item, item_path, "arrival_ms"),
                                           fields::join(item_path, "arrival_ms"), 0, kMaxArrivalMs);
    request.prompt_tokens = static_cast<int>(
        fields::as_int(require_field(item, item_path, "prompt"), fields::join(item_path, "prompt"), 1, kMaxTokens));
    request.answer_tokens = static_cast<int>(
        fields::as_int(require_field(item, item_path, "answer"), fields::join(item_path, "answer"), 1, kMaxTokens));
    requests.push_back(request);
  }
  return requests;
}

}  // namespace

std::vector<Request> generate_requests(const GeneratedWorkload& workload) {
  Rng rng(workload.seed);
  std::vector<Request> requests(static_cast<size_t>(workload.count));
  double arrival_ms = 0;
  for (Request& request : requests) {
    request.prompt_tokens = static_cast<int>(rng.uniform_int(workload.prompt_tokens_lo, workload.prompt_tokens_hi));
    request.answer_tokens = static_cast<int>(rng.uniform_int(workload.answer_tokens_lo, workload.answer_tokens_hi));
    if (workload.arrival == ArrivalKind::poisson) arrival_ms += -portable_log(1.0 - rng.uniform()) / workload.rate_per_s * 1000.0;
    request.arrival_ms = arrival_ms;
  }
  return requests;
}

std::vector<Request> read_workload(const nlohmann::json& workload, const std::string& path) {
  fields::require_object(workload, path);
  std::vector<Request> requests = workload.contains("requests") ? read_explicit(workload, path)
                                                                : generate_requests(read_generated(workload, path));
  long long total_answer_tokens = 0;
  for (const Request& request : requests) total_answer_tokens += request.answer_tokens;
  if (total_answer_tokens > kMaxTotalAnswerTokens)
    throw_range(path + " asks for " + std::to_string(total_answer_tokens) + " answer tokens in all; at most " +
                std::to_string(kMaxTotalAnswerTokens) + " are simulated");
  return requests;
}

nlohmann::json explicit_workload(const nlohmann::json& workload) {
  nlohmann::json list = nlohmann::json::array();
  for (const Request& request : read_workload(workload))
    list.push_back({{"arrival_ms", request.arrival_ms}, {"prompt", request.prompt_tokens}, {"answer", request.answer_tokens}});
  return {{"requests", std::move(list)}};
}

}  // namespace kvlab::sim
