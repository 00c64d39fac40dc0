#pragma once
// Workloads (contract section 2, extended in docs/memory.md): a generated one (count, prompt and answer
// lengths uniform or heavy-tailed, or prompts drawn from the story openings; arrivals all at zero, Poisson
// or Gamma, a shared system prompt, multi-turn chat, seed) or an explicit list of requests.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/request.h"

namespace kvlab::sim {

// The limits of a workload's fields (the page's form reads them through the catalog, src/wasm/catalog.h).
constexpr long long kMaxRequests = 1'000'000;
constexpr long long kMaxTokens = 1'000'000;  // per prompt, per answer
// Every answer token is at least one simulated row-step, so this bounds the work of a simulation.
constexpr long long kMaxTotalAnswerTokens = 100'000'000;
constexpr double kMinRatePerS = 1e-6, kMaxRatePerS = 1e9;
constexpr long long kMaxSeed = (1ll << 53) - 1;  // exact in a JS number

enum class ArrivalKind { all_at_zero, poisson, gamma };

// The token count of each text a workload's prompts may be drawn from ("prompts": "stories": the story
// openings, model_files/story_openings.h, under the model's tokenizer). Only a layer that has the model knows
// them; empty where there is none, and a workload that asks for them is refused.
using StoryPromptTokens = std::vector<int>;

// The defaults are the published lab's workload: 1,000 requests at t = 0, prompts 8-32, answers 16-96.
struct GeneratedWorkload {
  int count = 1000;
  int prompt_tokens_lo = 8, prompt_tokens_hi = 32;   // inclusive
  int answer_tokens_lo = 16, answer_tokens_hi = 96;  // inclusive
  // 0: lengths uniform on [lo, hi]; above 0: bounded Pareto with this shape on [lo, hi] (distributions.h).
  double prompt_pareto_alpha = 0, answer_pareto_alpha = 0;
  ArrivalKind arrival = ArrivalKind::all_at_zero;
  double rate_per_s = 1;         // Poisson and Gamma: mean arrivals per second
  double arrival_cv = 1;         // Gamma: coefficient of variation of the gaps (1 is as bursty as Poisson)
  int system_prompt_tokens = 0;  // prepended to every request's first prompt, shared by all
  int chat_conversations = 0;    // above 0: request i is the next turn of conversation i mod this
  uint64_t seed = 1;
  // Not empty: each request's prompt is one of these texts (the prompt lengths above are unused), with no
  // system prompt and no chat.
  StoryPromptTokens story_prompt_tokens;
};

// The requests of a generated workload, in workload order. Draws come from one kvlab::Rng seeded with
// `seed`, per request in this order: the new prompt tokens (or, with story prompts, the story: uniform_int
// over their indices), the answer (each uniform_int, or one uniform
// for a bounded Pareto), then the gap to the previous arrival (or to t = 0 for the first): for Poisson
// -ln(1 - u) / rate with u = uniform(), for Gamma a gamma_draw() (a varying number of uniforms) scaled to
// a mean of 1 / rate. All math is portable (portable_math.h), so the draws are the same to the bit natively
// and in wasm. A request's prompt is the system prompt plus its new tokens; in a chat, a later turn's prompt
// is the previous turn's prompt and answer plus its new tokens.
std::vector<policy::Request> generate_requests(const GeneratedWorkload& workload);

// Reads a workload object of either form (checked; errors name the field under `path`) and returns its
// requests in workload order. A generated workload's "prompts": "stories" and an explicit request's
// "story": k draw on `stories`.
std::vector<policy::Request> read_workload(const nlohmann::json& workload, const std::string& path = "workload",
                                           const StoryPromptTokens& stories = {});

// The explicit form { "requests": [ {arrival_ms, prompt, answer[, conversation][, story]} ][, "system_prompt": S] }
// of any workload object, so that a generated workload can be shown, saved and replayed request by request.
nlohmann::json explicit_workload(const nlohmann::json& workload, const StoryPromptTokens& stories = {});

// The requests of a workload object of either form (read as read_workload() reads it: checked, errors
// naming the field under "workload", at most kMaxRequests requests) as columns in workload order:
// {"arrival_ms", "prompt_tokens", "answer_tokens"}, named as the queue playback's "requests"
// (policy/playback_log.h), so that a page can use a generated workload's arrivals with requests of its own.
nlohmann::json workload_columns(const nlohmann::json& workload);

}  // namespace kvlab::sim
