#include "sim/workload.h"

#include <tuple>
#include <utility>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/rng.h"
#include "sim/distributions.h"
#include "sim/portable_math.h"
#include "sim/required_fields.h"

namespace kvlab::sim {

namespace {

constexpr double kMaxArrivalMs = 1e12;
// Gamma gaps with a coefficient of variation from 0.1 (nearly even) to 10 (a few huge bursts): shapes
// 1 / cv^2 from 100 down to 0.01.
constexpr double kMinArrivalCv = 0.1, kMaxArrivalCv = 10;
constexpr double kMinParetoAlpha = 0.1, kMaxParetoAlpha = 10;
constexpr long long kMaxConversation = kMaxRequests - 1;

// An inclusive [lo, hi] token range such as [8, 32], at `field`.
std::pair<int, int> read_range(const nlohmann::json& value, const std::string& field) {
  if (!value.is_array() || value.size() != 2)
    throw_type({field, echo_value(value), integers_from(1, kMaxTokens)},
               "must be a range [lo, hi] of two integers (got " + echo_value(value) + ")");
  int lo = static_cast<int>(fields::as_int(value[0], field + "[0]", 1, kMaxTokens));
  int hi = static_cast<int>(fields::as_int(value[1], field + "[1]", 1, kMaxTokens));
  if (lo > hi)
    throw_range({field, echo_value(value), integers_from(1, kMaxTokens)},
                "must be a range [lo, hi] with lo <= hi (got " + echo_value(value) + ")");
  return {lo, hi};
}

// Token lengths such as "prompt": [8, 32] (uniform), or {"kind": "pareto", "range": [8, 2048], "alpha": 1.2}.
// Returns lo, hi and the Pareto shape (0 for uniform).
std::tuple<int, int, double> read_lengths(const nlohmann::json& object, const std::string& path, const char* name) {
  std::string field = fields::join(path, name);
  const auto& value = require_field(object, path, name);
  if (!value.is_object()) {
    auto [lo, hi] = read_range(value, field);
    return {lo, hi, 0.0};
  }
  fields::reject_unknown(value, field, {"kind", "range", "alpha"});
  require_field(value, field, "kind");
  std::string kind = fields::read_string(value, field, "kind", "");
  if (kind != "pareto")
    throw_range({fields::join(field, "kind"), "\"" + kind + "\"", one_of({"pareto"})},
                "must be \"pareto\" (or give a range [lo, hi] for uniform lengths)");
  auto [lo, hi] = read_range(require_field(value, field, "range"), fields::join(field, "range"));
  require_field(value, field, "alpha");
  return {lo, hi, fields::read_number(value, field, "alpha", 0, kMinParetoAlpha, kMaxParetoAlpha)};
}

void read_arrival(const nlohmann::json& workload, const std::string& path, GeneratedWorkload& generated) {
  auto arrival_it = workload.find("arrival");
  if (arrival_it == workload.end()) return;  // all at t = 0
  std::string arrival_path = fields::join(path, "arrival");
  const auto& arrival = fields::require_object(*arrival_it, arrival_path);
  require_field(arrival, arrival_path, "kind");
  std::string kind = fields::read_string(arrival, arrival_path, "kind", "");
  if (kind == "all-at-zero") {
    fields::reject_unknown(arrival, arrival_path, {"kind"});
    return;
  }
  if (kind == "poisson") {
    fields::reject_unknown(arrival, arrival_path, {"kind", "rate_per_s"});
    generated.arrival = ArrivalKind::poisson;
  } else if (kind == "gamma") {
    fields::reject_unknown(arrival, arrival_path, {"kind", "rate_per_s", "cv"});
    generated.arrival = ArrivalKind::gamma;
    require_field(arrival, arrival_path, "cv");
    generated.arrival_cv = fields::read_number(arrival, arrival_path, "cv", 1, kMinArrivalCv, kMaxArrivalCv);
  } else {
    throw_range({fields::join(arrival_path, "kind"), "\"" + kind + "\"", one_of({"all-at-zero", "poisson", "gamma"})},
                "must be \"all-at-zero\", \"poisson\" or \"gamma\" (got \"" + kind + "\")");
  }
  require_field(arrival, arrival_path, "rate_per_s");
  generated.rate_per_s = fields::read_number(arrival, arrival_path, "rate_per_s", 0, kMinRatePerS, kMaxRatePerS);
}

// Throws unless `stories` has texts to draw on: `field` (a workload's "prompts", a request's "story")
// asks for one.
void require_stories(const StoryPromptTokens& stories, const std::string& field, const std::string& value) {
  if (stories.empty())
    throw_range({field, value, {}},
                "draws on the story openings, whose lengths are counted by a model's tokenizer: give a model read "
                "from a file (--model, --checkpoint or --gguf; on the page, a loaded model)");
}

// "prompts": "random" (the default: lengths from "prompt") or "stories" (each prompt a story opening,
// with no "prompt", "system_prompt" or "chat"). Whether the prompts are stories.
bool read_story_prompts(const nlohmann::json& workload, const std::string& path, const StoryPromptTokens& stories) {
  const std::string kind = fields::read_string(workload, path, "prompts", "random");
  const std::string field = fields::join(path, "prompts");
  if (kind != "random" && kind != "stories")
    throw_range({field, "\"" + kind + "\"", one_of({"random", "stories"})},
                "must be \"random\" or \"stories\" (got \"" + kind + "\")");
  if (kind == "random") return false;
  require_stories(stories, field, "\"stories\"");
  for (const char* other : {"prompt", "system_prompt", "chat"})
    if (workload.contains(other))
      throw_range({fields::join(path, other), "", {}},
                  "is not given with " + field + " \"stories\": each prompt is a whole story opening");
  return true;
}

GeneratedWorkload read_generated(const nlohmann::json& workload, const std::string& path,
                                 const StoryPromptTokens& stories) {
  fields::reject_unknown(workload, path,
                         {"count", "prompt", "prompts", "answer", "arrival", "seed", "system_prompt", "chat"});
  GeneratedWorkload generated;
  require_field(workload, path, "count");
  generated.count = static_cast<int>(fields::read_int(workload, path, "count", 0, 1, kMaxRequests));
  if (read_story_prompts(workload, path, stories))
    generated.story_prompt_tokens = stories;
  else
    std::tie(generated.prompt_tokens_lo, generated.prompt_tokens_hi, generated.prompt_pareto_alpha) =
        read_lengths(workload, path, "prompt");
  std::tie(generated.answer_tokens_lo, generated.answer_tokens_hi, generated.answer_pareto_alpha) =
      read_lengths(workload, path, "answer");
  generated.seed = static_cast<uint64_t>(fields::read_int(workload, path, "seed", 1, 0, kMaxSeed));
  generated.system_prompt_tokens =
      static_cast<int>(fields::read_int(workload, path, "system_prompt", 0, 0, kMaxTokens));
  if (auto chat_it = workload.find("chat"); chat_it != workload.end()) {
    std::string chat_path = fields::join(path, "chat");
    fields::require_object(*chat_it, chat_path);
    fields::reject_unknown(*chat_it, chat_path, {"conversations"});
    require_field(*chat_it, chat_path, "conversations");
    generated.chat_conversations =
        static_cast<int>(fields::read_int(*chat_it, chat_path, "conversations", 0, 1, kMaxRequests));
  }
  read_arrival(workload, path, generated);
  return generated;
}

// An explicit request's "story": k, the story opening its prompt is, which sets its prompt length.
void read_story(const nlohmann::json& item, const std::string& item_path, const StoryPromptTokens& stories,
                policy::Request& request) {
  auto story_it = item.find("story");
  if (story_it == item.end()) return;
  const std::string field = fields::join(item_path, "story");
  require_stories(stories, field, story_it->dump());
  request.story = static_cast<int>(fields::as_int(*story_it, field, 0, static_cast<long long>(stories.size()) - 1));
  const int story_tokens = stories[static_cast<size_t>(request.story)];
  if (request.prompt_tokens != story_tokens)
    throw_range({fields::join(item_path, "prompt"), std::to_string(request.prompt_tokens),
                 integers_from(story_tokens, story_tokens)},
                "must be " + std::to_string(story_tokens) + ", the tokens of story opening " +
                    std::to_string(request.story) + " (got " + std::to_string(request.prompt_tokens) + ")");
  if (request.conversation >= 0 || request.system_prompt_tokens > 0)
    throw_range({field, story_it->dump(), {}}, "is a whole prompt: not in a chat's turn or after a system prompt");
}

std::vector<policy::Request> read_explicit(const nlohmann::json& workload, const std::string& path,
                                           const StoryPromptTokens& stories) {
  fields::reject_unknown(workload, path, {"requests", "system_prompt"});
  const int system_prompt_tokens =
      static_cast<int>(fields::read_int(workload, path, "system_prompt", 0, 0, kMaxTokens));
  std::string list_path = fields::join(path, "requests");
  const auto& list = workload.at("requests");
  if (!list.is_array() || list.empty() || list.size() > static_cast<size_t>(kMaxRequests))
    throw_type({list_path, "", {}}, "must be a list of 1 to " + std::to_string(kMaxRequests) + " requests");
  std::vector<policy::Request> requests;
  requests.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    std::string item_path = list_path + "[" + std::to_string(i) + "]";
    const auto& item = fields::require_object(list[i], item_path);
    fields::reject_unknown(item, item_path, {"arrival_ms", "prompt", "answer", "conversation", "story"});
    policy::Request request;
    request.arrival_ms = fields::as_number(require_field(item, item_path, "arrival_ms"),
                                           fields::join(item_path, "arrival_ms"), 0, kMaxArrivalMs);
    request.prompt_tokens = static_cast<int>(
        fields::as_int(require_field(item, item_path, "prompt"), fields::join(item_path, "prompt"), 1, kMaxTokens));
    request.answer_tokens = static_cast<int>(
        fields::as_int(require_field(item, item_path, "answer"), fields::join(item_path, "answer"), 1, kMaxTokens));
    request.conversation = static_cast<int>(fields::read_int(item, item_path, "conversation", -1, 0, kMaxConversation));
    if (request.prompt_tokens < system_prompt_tokens)
      throw_range({fields::join(item_path, "prompt"), std::to_string(request.prompt_tokens),
                   integers_from(system_prompt_tokens, kMaxTokens)},
                  "must be at least " + fields::join(path, "system_prompt") + " = " +
                      std::to_string(system_prompt_tokens) + " tokens, which it begins with (got " +
                      std::to_string(request.prompt_tokens) + ")");
    request.system_prompt_tokens = system_prompt_tokens;
    read_story(item, item_path, stories, request);
    requests.push_back(request);
  }
  return requests;
}

int draw_tokens(Rng& rng, int lo, int hi, double pareto_alpha) {
  return pareto_alpha > 0 ? bounded_pareto_tokens(rng, lo, hi, pareto_alpha)
                          : static_cast<int>(rng.uniform_int(lo, hi));
}

}  // namespace

std::vector<policy::Request> generate_requests(const GeneratedWorkload& workload) {
  Rng rng(workload.seed);
  std::vector<policy::Request> requests(static_cast<size_t>(workload.count));
  // Tokens of each conversation so far: its last turn's prompt and answer, which the next turn's prompt
  // begins with (0 before its first turn).
  std::vector<long long> conversation_tokens(static_cast<size_t>(workload.chat_conversations), 0);
  const double gamma_shape = 1 / (workload.arrival_cv * workload.arrival_cv);
  double arrival_ms = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    policy::Request& request = requests[i];
    const StoryPromptTokens& stories = workload.story_prompt_tokens;
    if (!stories.empty())
      request.story = static_cast<int>(rng.uniform_int(0, static_cast<int64_t>(stories.size()) - 1));
    long long new_prompt_tokens =
        request.story >= 0
            ? stories[static_cast<size_t>(request.story)]
            : draw_tokens(rng, workload.prompt_tokens_lo, workload.prompt_tokens_hi, workload.prompt_pareto_alpha);
    request.answer_tokens =
        draw_tokens(rng, workload.answer_tokens_lo, workload.answer_tokens_hi, workload.answer_pareto_alpha);
    if (workload.arrival == ArrivalKind::poisson)
      arrival_ms += -portable_log(1.0 - rng.uniform()) / workload.rate_per_s * 1000.0;
    else if (workload.arrival == ArrivalKind::gamma)
      arrival_ms += gamma_draw(rng, gamma_shape) / gamma_shape / workload.rate_per_s * 1000.0;
    request.arrival_ms = arrival_ms;

    request.system_prompt_tokens = workload.system_prompt_tokens;
    long long prompt_tokens = workload.system_prompt_tokens + new_prompt_tokens;
    if (workload.chat_conversations > 0) {
      request.conversation = static_cast<int>(i % static_cast<size_t>(workload.chat_conversations));
      long long& history = conversation_tokens[static_cast<size_t>(request.conversation)];
      if (history > 0) prompt_tokens = history + new_prompt_tokens;
      history = prompt_tokens + request.answer_tokens;
    }
    if (prompt_tokens > kMaxTokens)
      throw_range({"workload", "", {}},
                  ": request " + std::to_string(i) + " would have a prompt of " + std::to_string(prompt_tokens) +
                      " tokens (system prompt, chat history and new tokens); at most " + std::to_string(kMaxTokens));
    request.prompt_tokens = static_cast<int>(prompt_tokens);
  }
  return requests;
}

std::vector<policy::Request> read_workload(const nlohmann::json& workload, const std::string& path,
                                           const StoryPromptTokens& stories) {
  fields::require_object(workload, path);
  std::vector<policy::Request> requests = workload.contains("requests")
                                              ? read_explicit(workload, path, stories)
                                              : generate_requests(read_generated(workload, path, stories));
  long long total_answer_tokens = 0;
  for (const policy::Request& request : requests) total_answer_tokens += request.answer_tokens;
  if (total_answer_tokens > kMaxTotalAnswerTokens)
    throw_range({path, std::to_string(total_answer_tokens), {}},
                "asks for " + std::to_string(total_answer_tokens) + " answer tokens in all; at most " +
                    std::to_string(kMaxTotalAnswerTokens) + " are simulated");
  return requests;
}

nlohmann::json explicit_workload(const nlohmann::json& workload, const StoryPromptTokens& stories) {
  std::vector<policy::Request> requests = read_workload(workload, "workload", stories);
  nlohmann::json list = nlohmann::json::array();
  for (const policy::Request& request : requests) {
    nlohmann::json item = {
        {"arrival_ms", request.arrival_ms}, {"prompt", request.prompt_tokens}, {"answer", request.answer_tokens}};
    if (request.conversation >= 0) item["conversation"] = request.conversation;
    if (request.story >= 0) item["story"] = request.story;
    list.push_back(std::move(item));
  }
  nlohmann::json result = {{"requests", std::move(list)}};
  // One system prompt per workload: every request carries the same length.
  if (requests.front().system_prompt_tokens > 0) result["system_prompt"] = requests.front().system_prompt_tokens;
  return result;
}

nlohmann::json workload_columns(const nlohmann::json& workload) {
  const std::vector<policy::Request> requests = read_workload(workload);
  std::vector<double> arrival_ms;
  std::vector<int> prompt_tokens, answer_tokens;
  arrival_ms.reserve(requests.size());
  prompt_tokens.reserve(requests.size());
  answer_tokens.reserve(requests.size());
  for (const policy::Request& request : requests) {
    arrival_ms.push_back(request.arrival_ms);
    prompt_tokens.push_back(request.prompt_tokens);
    answer_tokens.push_back(request.answer_tokens);
  }
  return {{"arrival_ms", arrival_ms}, {"prompt_tokens", prompt_tokens}, {"answer_tokens", answer_tokens}};
}

}  // namespace kvlab::sim
