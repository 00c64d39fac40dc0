// measure(), the lab and the bench on a model read from files (a tiny Llama the tests write as a llama2.c
// checkpoint and tokenizer): the file's sizes, a text prompt, the answer's words, and the limits the
// file's max_seq sets.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "experiments/kernel_bench.h"
#include "experiments/lab.h"
#include "measure/measure.h"
#include "model_file_writers.h"
#include "model_files/model_file.h"
#include "model_files/story_openings.h"
#include "model_files/text_generation.h"
#include "policy/policy_registry.h"

namespace kvlab {
namespace {

using nlohmann::json;

const uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// The tests' tiny Llama with room for a story opening spelled mostly in byte tokens.
class FileModelTest : public ::testing::Test {
 protected:
  FileModelTest() {
    test::TinyFileModel file = test::read_tiny_llama2c_model(128, 5);
    tokenizer = std::move(file.tokenizer);
    model = std::move(file.model);
  }

  FileModelRef ref() const { return {model.get(), tokenizer.get(), "tiny.bin"}; }

  // Small grids within the model's 128 positions, quick timing.
  static json small_options() {
    return {{"runs", 2},
            {"answer_tokens", 12},
            {"decode_rows", {1, 2}},
            {"decode_contexts", {4, 16}},
            {"prefill_tokens", {1, 8}},
            {"mixed_chunk_tokens", {4}},
            {"mixed_rows", {1}},
            {"mixed_contexts", {8}},
            {"min_sample_ms", 0.1},
            {"samples", 1}};
  }

  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<Model> model;
};

InputError input_error(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError(ErrorKind::range, "none");
}

TEST_F(FileModelTest, MeasuresTheFileModelOnAStoryOpening) {
  const MeasureOptions options = read_measure_options(small_options(), "options", ref());
  EXPECT_EQ(options.model.max_seq, 128);
  const std::string opening = story_opening_for_seed(7);  // prompt_seed's default
  EXPECT_EQ(options.prompt_text, opening);

  std::vector<std::string> parts;
  const json result = measure(options, nullptr, [&](const std::string& name, const json& value) {
                        parts.push_back(name);
                        if (name == "first_answer") {
                          EXPECT_EQ(value["prompt_text"], opening);
                          EXPECT_EQ(value["pieces"].size(), 12u);
                        }
                      }).to_json();
  EXPECT_EQ(parts, (std::vector<std::string>{"first_answer", "answer", "steps"}));

  const json& answer = result["answer"];
  EXPECT_EQ(answer["prompt_text"], opening);
  EXPECT_EQ(answer["prompt"], json(tokenizer->encode(opening)));
  EXPECT_EQ(answer["prompt_tokens"], static_cast<int>(tokenizer->encode(opening).size()));
  EXPECT_TRUE(answer["identical_tokens"].get<bool>());
  EXPECT_EQ(answer["tokens_nocache"], answer["tokens_cache"]);
  ASSERT_EQ(answer["tokens_cache"].size(), 12u);
  ASSERT_EQ(answer["pieces"].size(), 12u);

  // The answer is what generating the text alone writes, and its pieces join to that text as its JSON
  // shows it (this random model writes lone bytes of UTF-8 characters, each shown as U+FFFD).
  const TextGeneration alone = generate_text(*model, *tokenizer, opening, 12);
  ASSERT_EQ(alone.tokens.size(), 12u) << "this model and opening write 12 tokens without BOS or EOS";
  EXPECT_EQ(answer["tokens_cache"], json(alone.tokens));
  std::string joined;
  for (const json& piece : answer["pieces"]) joined += piece.get<std::string>();
  EXPECT_EQ(joined, json::parse(json(alone.text).dump(-1, ' ', false, json::error_handler_t::replace)));

  const json& model_description = result["steps"]["model"];
  EXPECT_EQ(model_description["name"], "tiny.bin");
  EXPECT_EQ(model_description["source"], "file");
  EXPECT_FALSE(model_description.contains("preset"));
  EXPECT_EQ(model_description["max_seq"], 128);
  EXPECT_EQ(model_description["d_model"], 32);
}

TEST_F(FileModelTest, PromptTextAndSeedChooseThePrompt) {
  json given = small_options();
  given["prompt_text"] = "once a cab";
  EXPECT_EQ(read_measure_options(given, "options", ref()).prompt, tokenizer->encode("once a cab"));
  given.erase("prompt_text");
  given["prompt_seed"] = 3;
  EXPECT_EQ(read_measure_options(given, "options", ref()).prompt_text, story_opening_for_seed(3));
}

TEST_F(FileModelTest, GridsAndPromptMustFitTheFilesPositions) {
  json given = small_options();
  given.erase("decode_contexts");  // the default reaches 128; this model holds 128 positions
  EXPECT_NO_THROW(read_measure_options(given, "options", ref()));
  given["decode_contexts"] = {4, 200};
  EXPECT_EQ(input_error([&] { read_measure_options(given, "options", ref()); }).field().path,
            "options.decode_contexts[1]");
  given = small_options();
  given["prefill_tokens"] = {1, 129};
  EXPECT_EQ(input_error([&] { read_measure_options(given, "options", ref()); }).field().path,
            "options.prefill_tokens[1]");
  given = small_options();
  given["prompt_text"] = std::string(140, 'x');  // 140 byte tokens
  const InputError long_prompt = input_error([&] { read_measure_options(given, "options", ref()); });
  EXPECT_EQ(long_prompt.field().path, "options.prompt_text");
  EXPECT_NE(std::string(long_prompt.what()).find("128 positions"), std::string::npos) << long_prompt.what();
  // The answer may fill the positions the prompt leaves, and its last token needs none.
  given["prompt_text"] = "once a cab";
  const int most = 128 - static_cast<int>(tokenizer->encode("once a cab").size()) + 1;
  given["answer_tokens"] = most + 1;
  EXPECT_EQ(input_error([&] { read_measure_options(given, "options", ref()); }).field().path, "options.answer_tokens");
  given["answer_tokens"] = most;
  EXPECT_NO_THROW(read_measure_options(given, "options", ref()));
}

TEST_F(FileModelTest, ThePresetsFieldsAreRefusedBesideAFileModel) {
  for (const auto& [field, value, path] :
       {std::tuple<const char*, json, const char*>{"preset", "tiny", "options.preset"},
        {"model", json{{"d_model", 64}}, "options.model.d_model"},
        {"prompt_tokens", 8, "options.prompt_tokens"},
        {"weights", "bf16", "options.weights"},
        {"kv", "f16", "options.kv"}}) {
    json given = small_options();
    given[field] = value;
    EXPECT_EQ(input_error([&] { read_measure_options(given, "options", ref()); }).field().path, path) << field;
  }
  // A preset takes no text prompt.
  EXPECT_EQ(input_error([] {
              read_measure_options({{"preset", "tiny"}, {"prompt_text", "a"}});
            })
                .field()
                .path,
            "options.prompt_text");
}

TEST_F(FileModelTest, TheLabRunsOnTheFileModel) {
  const json given = {{"measure", small_options()},
                      {"workload", {{"count", 20}, {"prompt", {4, 8}}, {"answer", {4, 8}}, {"seed", 1}}}};
  const json result = experiments::run_lab(experiments::read_lab_options(given, "options", ref()));
  EXPECT_EQ(result["steps"]["model"]["name"], "tiny.bin");
  EXPECT_EQ(result["answer"]["pieces"].size(), 12u);
  for (const std::string& policy : policy::default_policies())
    EXPECT_GT(result["policies"][policy]["makespan_ms"].get<double>(), 0.0) << policy;
  // The lab's measure options refuse a preset beside the file model, named where they sit.
  json with_preset = given;
  with_preset["measure"]["preset"] = "tiny";
  EXPECT_EQ(input_error([&] { experiments::read_lab_options(with_preset, "options", ref()); }).field().path,
            "options.measure.preset");
}

TEST_F(FileModelTest, TheBenchTimesTheFileModelInBothWeightFormats) {
  json measure_options = small_options();
  measure_options["samples"] = 1;
  const json given = {{"measure", measure_options}, {"answer_runs", 1}, {"simulator", false}, {"weight_formats", true}};
  const json result = experiments::run_kernel_bench(experiments::read_bench_options(given, "options", ref()));
  EXPECT_EQ(result["model"]["name"], "tiny.bin");
  EXPECT_EQ(result["answer"]["pieces"].size(), 12u);
  for (const char* format : {"f32", "bf16"})
    for (const char* rows : {"rows1", "rows16"})
      EXPECT_GT(result["weight_formats"][format]["tokens_per_s"][rows].get<double>(), 0.0) << format << " " << rows;
}

TEST(FileModelBench, RefusesAModelShorterThanItsLongestContext) {
  ModelConfig config = test::tiny_config();  // 64 positions; the bench times context 128
  const std::string checkpoint = test::llama2c_checkpoint_bytes(test::tiny_weights(config, 5));
  const std::string tokenizer_file = test::llama2c_tokenizer_bytes(test::tiny_vocabulary());
  ModelFile file =
      read_llama2c_files(bytes_of(checkpoint), checkpoint.size(), bytes_of(tokenizer_file), tokenizer_file.size());
  Tokenizer tokenizer(std::move(file.vocabulary));
  Model model(pack_weights(std::move(file.tensors)));
  const json given = {{"measure",
                       {{"decode_contexts", {4, 16}},
                        {"prefill_tokens", {1, 8}},
                        {"mixed_contexts", {8}},
                        {"answer_tokens", 8},
                        {"prompt_text", "ab"}}}};
  const InputError e = input_error([&] {
    experiments::read_bench_options(given, "options", {&model, &tokenizer, "t"});
  });
  EXPECT_EQ(e.field().path, "options.measure");
  EXPECT_NE(std::string(e.what()).find("context 128"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace kvlab
