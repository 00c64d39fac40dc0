// Story queues on a model read from files (a tiny llama2.c checkpoint and tokenizer written by the test):
// replay serves story openings, and every policy's engine answers each request as generating it alone
// does; the lab simulates a story queue on the prompt lengths the model's tokenizer gives.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "experiments/lab.h"
#include "experiments/replay.h"
#include "experiments/replay_report.h"
#include "model_file_writers.h"
#include "model_files/story_openings.h"
#include "model_files/text_generation.h"
#include "model_files/token_pieces.h"
#include "serve_test_support.h"

namespace kvlab::experiments {
namespace {

using nlohmann::json;

// The tiny test model with room for the longest opening (spelled mostly in byte tokens) and its answer.
struct TinyFileModel : test::TinyFileModel {
  TinyFileModel() : test::TinyFileModel(test::read_tiny_llama2c_model(160, 21)) {}
  FileModelRef ref() const { return {model.get(), tokenizer.get(), "tiny file"}; }
};

TinyFileModel& tiny_file_model() {
  static TinyFileModel model;
  return model;
}

// A short grid over the contexts the stories reach, timed briefly.
json story_measure_options() {
  return {
      {"decode_contexts", {8, 64, 128}}, {"prefill_tokens", {1, 16, 64, 128}}, {"min_sample_ms", 0.2}, {"samples", 3}};
}

TEST(StoryReplay, TheDefaultQueueIsStoryOpenings) {
  const TinyFileModel& tiny = tiny_file_model();
  const ReplayOptions o = read_replay_options({{"measure", story_measure_options()}}, "options", tiny.ref());
  ASSERT_EQ(o.requests.size(), 64u);
  ASSERT_EQ(o.story_prompts.size(), story_openings().size());
  for (const policy::Request& request : o.requests) {
    ASSERT_GE(request.story, 0);
    const std::string& opening = story_openings()[static_cast<size_t>(request.story)];
    EXPECT_EQ(o.story_prompts[static_cast<size_t>(request.story)], tiny.tokenizer->encode(opening));
    EXPECT_EQ(request.prompt_tokens, static_cast<int>(tiny.tokenizer->encode(opening).size()));
    EXPECT_GE(request.answer_tokens, 16);
    EXPECT_LE(request.answer_tokens, 48);
  }
  // Part A is not run, and its prompt on a model with a tokenizer is text: no prompt length is set.
  EXPECT_EQ(o.measure.file.model, tiny.model.get());
}

TEST(StoryReplay, EveryPolicyAnswersEachStoryAsGeneratingItAlone) {
  const TinyFileModel& tiny = tiny_file_model();
  std::vector<std::string> policies = serve::testing::test_policies();
  for (const char* memory_policy : {"reserve:4", "paged:4", "chunked:4,16"}) policies.push_back(memory_policy);
  const json options = {{"measure", story_measure_options()},
                        {"workload", {{"count", 10}, {"prompts", "stories"}, {"answer", {2, 9}}, {"seed", 4}}},
                        {"policies", policies},
                        {"kv_tokens", 2000},
                        {"block_tokens", 8},
                        {"after_prompt_rounds", 0}};
  const ReplayOptions o = read_replay_options(options, "options", tiny.ref());
  const ReplayResult result = replay(o);
  ASSERT_EQ(result.policies.size(), policies.size());
  for (const NamedPolicyReplay& named : result.policies) {
    SCOPED_TRACE(named.name);
    const RealRun& real = named.replay.real;
    const size_t count = named.replay.request_count;
    ASSERT_EQ(real.answers.size(), count);
    ASSERT_EQ(real.texts.size(), count);
    EXPECT_EQ(real.answers_equal_alone, static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      const policy::Request& request = o.requests[i];
      const std::string& opening = story_openings()[static_cast<size_t>(request.story)];
      const TextGeneration alone = generate_text(*tiny.model, *tiny.tokenizer, opening, request.answer_tokens);
      const std::vector<int>& tokens = real.answers[i];
      ASSERT_EQ(tokens.size(), static_cast<size_t>(request.answer_tokens));
      EXPECT_EQ(text_tokens(tokens, tiny.tokenizer->vocabulary()), alone.tokens) << i;
      EXPECT_EQ(real.texts[i].answer, token_text(*tiny.tokenizer, alone.prompt_tokens.back(), alone.tokens)) << i;
      EXPECT_EQ(real.texts[i].prompt, opening) << i;
    }
  }
  // The JSON carries the answers and texts on each real request.
  const json entry = result.to_json()[result.policies[0].name];
  EXPECT_EQ(entry["answers_equal_alone"], result.policies[0].replay.request_count);
  EXPECT_EQ(entry["real"]["requests"][0]["tokens"], result.policies[0].replay.real.answers[0]);
  EXPECT_EQ(entry["real"]["requests"][0]["prompt_text"], result.policies[0].replay.real.texts[0].prompt);
  // The text report counts the equal answers and shows the first stories.
  const std::string report = format_replay_report(result);
  EXPECT_NE(report.find("serial-cache     10 of 10 equal"), std::string::npos) << report;
  EXPECT_NE(report.find(story_openings()[static_cast<size_t>(o.requests[0].story)] + " ["), std::string::npos);
}

TEST(StoryLab, SimulatesStoryOpeningsInTheModelsTokens) {
  const TinyFileModel& tiny = tiny_file_model();
  const json workload = {{"count", 30}, {"prompts", "stories"}, {"answer", {2, 4}}, {"seed", 2}};
  const LabOptions o =
      read_lab_options({{"measure", story_measure_options()}, {"workload", workload}}, "options", tiny.ref());
  ASSERT_EQ(o.requests.size(), 30u);
  std::set<int> stories;
  for (const policy::Request& request : o.requests) {
    stories.insert(request.story);
    EXPECT_EQ(request.prompt_tokens,
              static_cast<int>(tiny.tokenizer->encode(story_openings()[static_cast<size_t>(request.story)]).size()));
  }
  EXPECT_GT(stories.size(), 10u);  // 30 draws from 20 openings
}

// The message of reading `options` on `file`.
std::string error_of(const json& options, const FileModelRef& file) {
  try {
    read_replay_options(options, "options", file);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(StoryReplay, BadStoryOptionsNameTheField) {
  const TinyFileModel& tiny = tiny_file_model();
  const json stories = {{"count", 4}, {"prompts", "stories"}, {"answer", {2, 4}}};
  // A preset has no tokenizer to count a story's tokens with.
  EXPECT_NE(error_of({{"measure", serve::testing::tiny_measure_options()}, {"workload", stories}}, {})
                .find("options.workload.prompts draws on the story openings"),
            std::string::npos);
  json past_last = {{"requests", {{{"arrival_ms", 0}, {"prompt", 5}, {"answer", 2}, {"story", 20}}}}};
  EXPECT_NE(error_of({{"measure", story_measure_options()}, {"workload", past_last}}, tiny.ref())
                .find("options.workload.requests[0].story must be an integer from 0 to 19 (got 20)"),
            std::string::npos);
  json too_long = stories;
  too_long["answer"] = {100, 100};
  EXPECT_NE(error_of({{"measure", story_measure_options()}, {"workload", too_long}}, tiny.ref())
                .find("options.workload: the longest prompt + the longest answer - 1"),
            std::string::npos);
}

}  // namespace
}  // namespace kvlab::experiments
