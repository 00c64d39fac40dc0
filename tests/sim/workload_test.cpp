// Workloads: the generator's exact draws (so that a change of generator is caught), explicit lists, and
// their checks.
#include "sim/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/input_error.h"
#include "common/rng.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;

void expect_request(const policy::Request& request, double arrival_ms, int prompt_tokens, int answer_tokens) {
  EXPECT_DOUBLE_EQ(request.arrival_ms, arrival_ms);
  EXPECT_EQ(request.prompt_tokens, prompt_tokens);
  EXPECT_EQ(request.answer_tokens, answer_tokens);
}

// Expected values come from a separate Python SplitMix64 following the documented draw order.
TEST(GeneratedWorkload, DrawsAreFixedBySeed) {
  auto requests = read_workload({{"count", 1000},
                                 {"prompt", {8, 32}},
                                 {"answer", {16, 96}},
                                 {"arrival", {{"kind", "all-at-zero"}}},
                                 {"seed", 1}});
  ASSERT_EQ(requests.size(), 1000u);
  expect_request(requests[0], 0, 23, 68);
  expect_request(requests[1], 0, 23, 36);
  expect_request(requests[2], 0, 19, 93);
  expect_request(requests[3], 0, 28, 82);
  long long prompt_sum = 0, answer_sum = 0;
  for (const policy::Request& r : requests) prompt_sum += r.prompt_tokens, answer_sum += r.answer_tokens;
  EXPECT_EQ(prompt_sum, 20080);
  EXPECT_EQ(answer_sum, 55220);
}

TEST(GeneratedWorkload, PoissonGapsFollowEachRequestsSizes) {
  auto requests = read_workload({{"count", 3},
                                 {"prompt", {8, 32}},
                                 {"answer", {16, 96}},
                                 {"arrival", {{"kind", "poisson"}, {"rate_per_s", 50}}},
                                 {"seed", 7}});
  // Per request: prompt, answer, then the gap -ln(1 - u) / 50 s; the first arrives one gap after t = 0.
  expect_request(requests[0], 46.204419567462814, 20, 94);
  expect_request(requests[1], 51.942907352993046, 11, 59);
  expect_request(requests[2], 54.82628098164236, 31, 55);
}

TEST(GeneratedWorkload, GammaGapsAndParetoLengthsFollowEachRequestsDraws) {
  // Expected values from a separate Python implementation of the documented draws (libm's log and exp, so
  // times to 1e-12 relative): per request a bounded-Pareto prompt (one uniform), a uniform answer, then a
  // Gamma gap of shape 1 / 3^2 (Marsaglia-Tsang on shape + 1 and a power of a uniform) with mean 100 ms.
  auto requests = read_workload({{"count", 4},
                                 {"prompt", {{"kind", "pareto"}, {"range", {8, 2048}}, {"alpha", 1.2}}},
                                 {"answer", {16, 96}},
                                 {"arrival", {{"kind", "gamma"}, {"rate_per_s", 10}, {"cv", 3}}},
                                 {"seed", 11}});
  const double expected_ms[] = {18.876458338273476, 18.876458339018203, 216.76956066545446, 216.76956760884468};
  const int expected_prompt[] = {10, 108, 10, 32}, expected_answer[] = {20, 32, 95, 55};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(requests[i].arrival_ms, expected_ms[i], 1e-12 * expected_ms[i]) << i;
    EXPECT_EQ(requests[i].prompt_tokens, expected_prompt[i]) << i;
    EXPECT_EQ(requests[i].answer_tokens, expected_answer[i]) << i;
  }
  // cv 0.5: shape 4, Marsaglia-Tsang directly.
  auto even = read_workload({{"count", 3},
                             {"prompt", {8, 32}},
                             {"answer", {16, 96}},
                             {"arrival", {{"kind", "gamma"}, {"rate_per_s", 10}, {"cv", 0.5}}},
                             {"seed", 2}});
  EXPECT_NEAR(even[0].arrival_ms, 118.47635940387066, 1e-10);
  EXPECT_NEAR(even[2].arrival_ms, 399.52412125486956, 1e-10);
  EXPECT_EQ(even[2].prompt_tokens, 12);
}

TEST(GeneratedWorkload, GammaGapsHaveTheAskedMeanAndVariation) {
  for (double cv : {0.3, 1.0, 4.0}) {
    GeneratedWorkload workload;
    workload.count = 200000;
    workload.arrival = ArrivalKind::gamma;
    workload.rate_per_s = 50;
    workload.arrival_cv = cv;
    auto requests = generate_requests(workload);
    double sum = 0, sum_squares = 0, previous_ms = 0;
    for (const policy::Request& r : requests) {
      double gap = r.arrival_ms - previous_ms;
      previous_ms = r.arrival_ms;
      sum += gap;
      sum_squares += gap * gap;
    }
    double mean = sum / workload.count, sd = std::sqrt(sum_squares / workload.count - mean * mean);
    EXPECT_NEAR(mean, 20, 20 * 0.03 * cv) << cv;  // 1 / 50 s; a few standard errors
    EXPECT_NEAR(sd / mean, cv, 0.05 * cv) << cv;
  }
}

TEST(GeneratedWorkload, BoundedParetoLengthsHaveAHeavyTail) {
  // alpha = 1 on [10, 999] (x on [10, 1000)): P(x >= t) = (10/t - 10/1000) / (1 - 10/1000).
  GeneratedWorkload workload;
  workload.count = 200000;
  workload.answer_tokens_lo = 10;
  workload.answer_tokens_hi = 999;
  workload.answer_pareto_alpha = 1;
  auto requests = generate_requests(workload);
  int at_least_100 = 0, lo = 1000000, hi = 0;
  for (const policy::Request& r : requests) {
    at_least_100 += r.answer_tokens >= 100;
    lo = std::min(lo, r.answer_tokens);
    hi = std::max(hi, r.answer_tokens);
  }
  EXPECT_EQ(lo, 10);
  EXPECT_LE(hi, 999);
  EXPECT_GT(hi, 900);
  EXPECT_NEAR(at_least_100 / 200000.0, (0.1 - 0.01) / 0.99, 0.004);
}

TEST(GeneratedWorkload, SystemPromptAndChatTurns) {
  // 2 conversations take turns: request i is turn i / 2 of conversation i % 2. Every first prompt is the
  // 10-token system prompt plus 5 new tokens; a later turn's is the previous prompt and its 3-token answer
  // plus 5 new tokens.
  auto requests = read_workload(
      {{"count", 5}, {"prompt", {5, 5}}, {"answer", {3, 3}}, {"system_prompt", 10}, {"chat", {{"conversations", 2}}}});
  const int expected_prompt[] = {15, 15, 23, 23, 31};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(requests[i].prompt_tokens, expected_prompt[i]) << i;
    EXPECT_EQ(requests[i].conversation, i % 2) << i;
    EXPECT_EQ(requests[i].system_prompt_tokens, 10) << i;
  }
  // The explicit form keeps both, and reads back the same.
  json spec = {
      {"count", 5}, {"prompt", {5, 5}}, {"answer", {3, 3}}, {"system_prompt", 10}, {"chat", {{"conversations", 2}}}};
  json explicit_form = explicit_workload(spec);
  EXPECT_EQ(explicit_form["system_prompt"], 10);
  EXPECT_EQ(explicit_form["requests"][2],
            (json{{"arrival_ms", 0.0}, {"prompt", 23}, {"answer", 3}, {"conversation", 0}}));
  auto replayed = read_workload(explicit_form);
  EXPECT_EQ(replayed[4].prompt_tokens, 31);
  EXPECT_EQ(replayed[4].conversation, 0);
  EXPECT_EQ(replayed[4].system_prompt_tokens, 10);
  // Without either, nothing is shared and the explicit form has no such keys.
  json plain = explicit_workload({{"count", 2}, {"prompt", {5, 5}}, {"answer", {3, 3}}});
  EXPECT_FALSE(plain.contains("system_prompt"));
  EXPECT_FALSE(plain["requests"][0].contains("conversation"));
}

TEST(GeneratedWorkload, SameSeedSameWorkloadOtherSeedOther) {
  json spec = {{"count", 50}, {"prompt", {1, 100}}, {"answer", {1, 100}}, {"seed", 42}};
  EXPECT_EQ(explicit_workload(spec), explicit_workload(spec));
  json other = spec;
  other["seed"] = 43;
  EXPECT_NE(explicit_workload(spec), explicit_workload(other));
  // Without arrival and seed: all at zero, seed 1.
  json defaults = {{"count", 4}, {"prompt", {8, 32}}, {"answer", {16, 96}}};
  EXPECT_EQ(explicit_workload(defaults)["requests"][3], (json{{"arrival_ms", 0.0}, {"prompt", 28}, {"answer", 82}}));
}

TEST(ExplicitWorkload, RoundTripsAGeneratedOne) {
  json spec = {
      {"count", 20}, {"prompt", {1, 9}}, {"answer", {1, 9}}, {"arrival", {{"kind", "poisson"}, {"rate_per_s", 10}}}};
  auto generated = read_workload(spec);
  auto replayed = read_workload(explicit_workload(spec));
  ASSERT_EQ(replayed.size(), generated.size());
  for (size_t i = 0; i < generated.size(); ++i)
    expect_request(replayed[i], generated[i].arrival_ms, generated[i].prompt_tokens, generated[i].answer_tokens);
}

TEST(WorkloadColumns, HoldTheGeneratedRequestsInOrder) {
  json spec = {{"count", 30},
               {"prompt", {1, 9}},
               {"answer", {1, 9}},
               {"system_prompt", 4},
               {"arrival", {{"kind", "poisson"}, {"rate_per_s", 10}}},
               {"seed", 7}};
  auto generated = read_workload(spec);
  json columns = workload_columns(spec);
  ASSERT_EQ(columns["arrival_ms"].size(), generated.size());
  for (size_t i = 0; i < generated.size(); ++i)
    expect_request(generated[i], columns["arrival_ms"][i].get<double>(), columns["prompt_tokens"][i].get<int>(),
                   columns["answer_tokens"][i].get<int>());
  EXPECT_THROW(workload_columns({{"count", 0}}), InputError);
}

TEST(ExplicitWorkload, KeepsListOrder) {
  auto requests = read_workload(
      {{"requests",
        {{{"arrival_ms", 5}, {"prompt", 2}, {"answer", 3}}, {{"arrival_ms", 0.5}, {"prompt", 1}, {"answer", 1}}}}});
  expect_request(requests[0], 5, 2, 3);
  expect_request(requests[1], 0.5, 1, 1);
}

// The InputError message of reading `workload`.
std::string error_of(const json& workload) {
  try {
    read_workload(workload);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(WorkloadErrors, NameTheField) {
  json good = {{"arrival_ms", 0}, {"prompt", 4}, {"answer", 4}};
  json zero_prompt = good, zero_answer = good, negative_arrival = good, nan_arrival = good, extra = good,
       missing = good;
  zero_prompt["prompt"] = 0;
  zero_answer["answer"] = 0;
  negative_arrival["arrival_ms"] = -1;
  nan_arrival["arrival_ms"] = "NaN";
  extra["priority"] = 1;
  missing.erase("answer");
  auto list = [&](const json& bad) { return json{{"requests", {good, good, good, bad}}}; };
  EXPECT_EQ(error_of(list(zero_prompt)), "workload.requests[3].prompt must be an integer from 1 to 1000000 (got 0)");
  EXPECT_EQ(error_of(list(zero_answer)), "workload.requests[3].answer must be an integer from 1 to 1000000 (got 0)");
  EXPECT_NE(error_of(list(negative_arrival)).find("workload.requests[3].arrival_ms must be a number from 0"),
            std::string::npos);
  EXPECT_NE(error_of(list(nan_arrival)).find("workload.requests[3].arrival_ms"), std::string::npos);
  EXPECT_NE(error_of(list(nan_arrival)).find("(got NaN)"), std::string::npos);
  EXPECT_NE(error_of(list(extra)).find("workload.requests[3].priority is not a known field"), std::string::npos);
  EXPECT_NE(error_of(list(missing)).find("workload.requests[3].answer is missing"), std::string::npos);
  EXPECT_NE(error_of({{"requests", json::array()}}).find("workload.requests"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("workload must be an object"), std::string::npos);

  json spec = {{"count", 10}, {"prompt", {8, 32}}, {"answer", {16, 96}}};
  auto with = [&](const char* key, const json& value) {
    json changed = spec;
    changed[key] = value;
    return error_of(changed);
  };
  EXPECT_NE(with("answer", {0, 5}).find("workload.answer[0] must be an integer from 1"), std::string::npos);
  EXPECT_NE(with("prompt", {32, 8}).find("workload.prompt must be a range [lo, hi] with lo <= hi"), std::string::npos);
  EXPECT_NE(with("prompt", {8}).find("workload.prompt must be a range [lo, hi]"), std::string::npos);
  EXPECT_NE(with("count", 0).find("workload.count must be an integer from 1 to 1000000 (got 0)"), std::string::npos);
  EXPECT_NE(with("seed", -1).find("workload.seed"), std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "bursty"}}).find("workload.arrival.kind"), std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "poisson"}}).find("workload.arrival.rate_per_s is missing"), std::string::npos);
  EXPECT_NE(
      with("arrival", {{"kind", "poisson"}, {"rate_per_s", 0}}).find("workload.arrival.rate_per_s must be a number"),
      std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "all-at-zero"}, {"rate_per_s", 3}})
                .find("workload.arrival.rate_per_s is not a known field"),
            std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "gamma"}, {"rate_per_s", 3}}).find("workload.arrival.cv is missing"),
            std::string::npos);
  EXPECT_NE(with("arrival", {{"kind", "gamma"}, {"rate_per_s", 3}, {"cv", 20}})
                .find("workload.arrival.cv must be a number from 0.1 to 10"),
            std::string::npos);
  EXPECT_NE(with("prompt", {{"kind", "lognormal"}, {"range", {1, 9}}}).find("workload.prompt.kind must be \"pareto\""),
            std::string::npos);
  EXPECT_NE(with("prompt", {{"kind", "pareto"}, {"range", {1, 9}}}).find("workload.prompt.alpha is missing"),
            std::string::npos);
  EXPECT_NE(with("answer", {{"kind", "pareto"}, {"range", {9, 1}}, {"alpha", 1}})
                .find("workload.answer.range must be a range [lo, hi] with lo <= hi"),
            std::string::npos);
  EXPECT_NE(with("system_prompt", -1).find("workload.system_prompt must be an integer from 0"), std::string::npos);
  EXPECT_NE(with("chat", {{"conversations", 0}}).find("workload.chat.conversations must be an integer from 1"),
            std::string::npos);
  EXPECT_NE(with("chat", {{"turns", 3}}).find("workload.chat.turns is not a known field"), std::string::npos);
  // Chat prompts grow turn by turn, within the per-prompt limit.
  json growing = {{"count", 3}, {"prompt", {1, 1}}, {"answer", {600000, 600000}}, {"chat", {{"conversations", 1}}}};
  EXPECT_NE(error_of(growing).find("workload: request 2 would have a prompt of 1200003 tokens"), std::string::npos);
  // Explicit: the system prompt is where every prompt begins.
  json with_system = {{"system_prompt", 4}, {"requests", {good, {{"arrival_ms", 0}, {"prompt", 3}, {"answer", 1}}}}};
  EXPECT_EQ(
      error_of(with_system),
      "workload.requests[1].prompt must be at least workload.system_prompt = 4 tokens, which it begins with (got 3)");
  json bad_conversation = good;
  bad_conversation["conversation"] = -2;
  EXPECT_NE(error_of(list(bad_conversation)).find("workload.requests[3].conversation must be an integer from 0"),
            std::string::npos);
  json no_count = spec;
  no_count.erase("count");
  EXPECT_NE(error_of(no_count).find("workload.count is missing"), std::string::npos);
}

// Story prompts: the token counts of three texts, as a model's tokenizer would count them.
const StoryPromptTokens kStories = {5, 9, 7};

TEST(StoryWorkload, EachPromptIsAStoryDrawnByTheSeed) {
  json spec = {{"count", 200}, {"prompts", "stories"}, {"answer", {2, 6}}, {"seed", 3}};
  auto requests = read_workload(spec, "workload", kStories);
  ASSERT_EQ(requests.size(), 200u);
  // The documented draws: per request the story (uniform over its index), then the answer.
  Rng rng(3);
  std::vector<int> drawn(kStories.size(), 0);
  for (const policy::Request& request : requests) {
    EXPECT_EQ(request.story, rng.uniform_int(0, 2));
    EXPECT_EQ(request.answer_tokens, rng.uniform_int(2, 6));
    EXPECT_EQ(request.prompt_tokens, kStories[static_cast<size_t>(request.story)]);
    EXPECT_EQ(request.conversation, -1);
    EXPECT_EQ(request.system_prompt_tokens, 0);
    ++drawn[static_cast<size_t>(request.story)];
  }
  for (int count : drawn) EXPECT_GT(count, 40);
  // The same seed draws the same stories; another seed others.
  EXPECT_EQ(explicit_workload(spec, kStories), explicit_workload(spec, kStories));
  json other = spec;
  other["seed"] = 4;
  EXPECT_NE(explicit_workload(spec, kStories), explicit_workload(other, kStories));
  // A workload without "prompts" (or "random") draws as before, and carries no story.
  json plain = {{"count", 4}, {"prompt", {8, 32}}, {"answer", {16, 96}}};
  json random = plain;
  random["prompts"] = "random";
  EXPECT_EQ(explicit_workload(random, kStories), explicit_workload(plain));
  EXPECT_EQ(read_workload(plain, "workload", kStories)[3].story, -1);
}

TEST(StoryWorkload, TheExplicitFormKeepsEachStory) {
  json spec = {{"count", 6}, {"prompts", "stories"}, {"answer", {4, 4}}, {"seed", 9}};
  json explicit_form = explicit_workload(spec, kStories);
  auto generated = read_workload(spec, "workload", kStories);
  auto replayed = read_workload(explicit_form, "workload", kStories);
  ASSERT_EQ(replayed.size(), generated.size());
  for (size_t i = 0; i < generated.size(); ++i) {
    EXPECT_EQ(explicit_form["requests"][i]["story"], generated[i].story);
    EXPECT_EQ(replayed[i].story, generated[i].story);
    EXPECT_EQ(replayed[i].prompt_tokens, generated[i].prompt_tokens);
  }
}

TEST(StoryWorkload, ErrorsNameTheField) {
  auto error_with = [](const json& workload, const StoryPromptTokens& stories) {
    try {
      read_workload(workload, "workload", stories);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  json spec = {{"count", 3}, {"prompts", "stories"}, {"answer", {4, 4}}};
  EXPECT_NE(error_with(spec, {}).find("workload.prompts draws on the story openings"), std::string::npos);
  json poems = spec;
  poems["prompts"] = "poems";
  EXPECT_EQ(error_with(poems, kStories), "workload.prompts must be \"random\" or \"stories\" (got \"poems\")");
  for (const char* other : {"prompt", "system_prompt", "chat"}) {
    json both = spec;
    both[other] = other == std::string("chat") ? json{{"conversations", 2}} : json(4);
    EXPECT_EQ(error_with(both, kStories), "workload." + std::string(other) +
                                              " is not given with workload.prompts \"stories\": each prompt is a "
                                              "whole story opening");
  }
  auto list = [](const json& item) { return json{{"requests", {item}}}; };
  json story = {{"arrival_ms", 0}, {"prompt", 9}, {"answer", 2}, {"story", 1}};
  EXPECT_EQ(read_workload(list(story), "workload", kStories)[0].story, 1);
  EXPECT_NE(error_with(list(story), {}).find("workload.requests[0].story draws on the story openings"),
            std::string::npos);
  json past_end = story;
  past_end["story"] = 3;
  EXPECT_EQ(error_with(list(past_end), kStories), "workload.requests[0].story must be an integer from 0 to 2 (got 3)");
  json wrong_length = story;
  wrong_length["prompt"] = 8;
  EXPECT_EQ(error_with(list(wrong_length), kStories),
            "workload.requests[0].prompt must be 9, the tokens of story opening 1 (got 8)");
  json in_chat = story;
  in_chat["conversation"] = 0;
  EXPECT_EQ(error_with(list(in_chat), kStories),
            "workload.requests[0].story is a whole prompt: not in a chat's turn or after a system prompt");
}

TEST(WorkloadErrors, TooManyAnswerTokensInAll) {
  // 1,000,000 answers of at least 101 tokens: more than the 100,000,000 simulated tokens allowed.
  std::string message = error_of({{"count", 1000000}, {"prompt", {1, 1}}, {"answer", {101, 101}}});
  EXPECT_NE(message.find("workload asks for 101000000 answer tokens"), std::string::npos) << message;
}

}  // namespace
}  // namespace kvlab::sim
