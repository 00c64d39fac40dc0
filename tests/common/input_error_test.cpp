// InputError carries the field as data (path, what was given, what is allowed) besides the message, from
// every kind of reader: a number out of range, a choice not in the list, a field inside a list, an error
// a policy raises about the options, and its JSON form for Embind.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/utf8.h"
#include "measure/measure_options.h"
#include "sim/simulate.h"
#include "sim/workload.h"

namespace kvlab {
namespace {

using nlohmann::json;

template <typename Body>
InputError caught(Body body) {
  try {
    body();
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError";
  return InputError(ErrorKind::range, "none");
}

json tiny_steps() {
  return {{"decode", {{"rows", {1, 4}}, {"contexts", {8, 64}}, {"ms", {{1, 2}, {3, 4}}}}},
          {"prefill", {{"tokens", {1, 64}}, {"ms", {1, 8}}}}};
}

TEST(InputError, AnIntegerOutOfRangeCarriesItsPathWhatWasGivenAndTheRange) {
  const InputError e = caught([] { fields::read_int(json{{"runs", 0}}, "options", "runs", 5, 1, 100); });
  EXPECT_STREQ(e.what(), "options.runs must be an integer from 1 to 100 (got 0)");
  EXPECT_EQ(e.field().path, "options.runs");
  EXPECT_EQ(e.field().given, "0");
  EXPECT_EQ(e.field().allowed.min, 1);
  EXPECT_EQ(e.field().allowed.max, 100);
  EXPECT_TRUE(e.field().allowed.integer);
  EXPECT_EQ(e.problem(), "must be an integer from 1 to 100 (got 0)");
  EXPECT_EQ(e.kind(), ErrorKind::range);
}

TEST(InputError, AFieldInsideAWorkloadListIsNamedByItsFullPath) {
  const json workload = {{"requests",
                          {{{"arrival_ms", 0}, {"prompt", 4}, {"answer", 2}},
                           {{"arrival_ms", 0}, {"prompt", 4}, {"answer", 2}},
                           {{"arrival_ms", 0}, {"prompt", 4}, {"answer", 2}},
                           {{"arrival_ms", 0}, {"prompt", 0}, {"answer", 2}}}}};
  const InputError e = caught([&] { sim::simulate_json(tiny_steps(), workload, {"continuous:2"}); });
  EXPECT_EQ(e.field().path, "workload.requests[3].prompt");
  EXPECT_EQ(e.field().given, "0");
  EXPECT_EQ(e.field().allowed.min, 1);
  EXPECT_EQ(e.field().allowed.max, 1000000);
}

TEST(InputError, AChoiceNotInTheListCarriesTheChoices) {
  const InputError e = caught([] { read_measure_options(json{{"preset", "huge"}}); });
  EXPECT_EQ(e.field().path, "options.preset");
  EXPECT_EQ(e.field().given, "\"huge\"");
  EXPECT_EQ(e.field().allowed.choices, (std::vector<std::string>{"small", "lab", "medium", "tiny"}));
  EXPECT_FALSE(e.field().allowed.min.has_value());

  const InputError unknown = caught([] { read_measure_options(json{{"rums", 3}}); });
  EXPECT_EQ(unknown.field().path, "options.rums");
  EXPECT_EQ(unknown.problem().rfind("is not a known field", 0), 0u) << unknown.problem();
  EXPECT_FALSE(unknown.field().allowed.choices.empty());
}

TEST(InputError, APolicyNameIsNamedByItsPlaceInTheList) {
  const json workload = {{"count", 4}, {"prompt", {2, 4}}, {"answer", {1, 3}}};
  const InputError e = caught([&] { sim::simulate_json(tiny_steps(), workload, {"serial-cache", "static:0"}); });
  EXPECT_STREQ(e.what(), "policies[1] \"static:0\": B must be an integer from 1 to 4096 (got 0)");
  EXPECT_EQ(e.field().path, "policies[1]");
  EXPECT_EQ(e.field().given, "\"static:0\"");
  EXPECT_EQ(e.field().allowed.max, 4096);

  const InputError unknown = caught([&] { sim::simulate_json(tiny_steps(), workload, {"fastest"}); });
  EXPECT_EQ(unknown.field().path, "policies[0]");
  EXPECT_EQ(unknown.field().allowed.choices.front(), "serial-nocache");
}

TEST(InputError, AnErrorRaisedWhileAPolicyRunsKeepsItsFieldUnderTheContext) {
  const json workload = {{"requests", {{{"arrival_ms", 0}, {"prompt", 40}, {"answer", 30}}}}};
  sim::SimulateOptions options;
  options.kv_tokens = 32;
  const InputError e = caught([&] { sim::simulate_json(tiny_steps(), workload, {"paged:2"}, options); });
  EXPECT_EQ(e.context(), "policy paged:2: ");
  EXPECT_EQ(e.field().path, "options.kv_tokens");
  EXPECT_EQ(e.field().given, "32");
  EXPECT_EQ(std::string(e.what()), "policy paged:2: options.kv_tokens " + e.problem());
  EXPECT_EQ(e.problem().rfind("= 32 holds 2 blocks of 16 tokens, but request 0 alone needs", 0), 0u) << e.problem();
}

TEST(InputError, ItsJsonCarriesTheFieldAndLeavesOutWhatIsUnknown) {
  const InputError e = caught([] { fields::as_number(json(-1), "steps.decode.ms[0][0]", 0, 1e12); });
  EXPECT_EQ(e.to_json(), json::parse(R"j({"type": "RangeError", "path": "steps.decode.ms[0][0]", "given": "-1",
      "message": "steps.decode.ms[0][0] must be a number from 0 to 1e+12 (got -1)", "allowed": {"min": 0, "max": 1e12}})j"));
  const InputError whole(ErrorKind::type, "--steps file is not valid JSON (at line 1, column 2)");
  EXPECT_EQ(
      whole.to_json(),
      json::parse(R"j({"type": "TypeError", "message": "--steps file is not valid JSON (at line 1, column 2)"})j"));
  EXPECT_EQ(whole.problem(), whole.what());
  EXPECT_TRUE(whole.field().path.empty());
}

TEST(InputError, AProblemThatStartsWithAColonFollowsThePathDirectly) {
  const InputError e(ErrorKind::range, FieldError{"workload", "", {}}, ": this policy would run too long");
  EXPECT_STREQ(e.what(), "workload: this policy would run too long");
}

// The bug: "a" and thirty "é" were cut at byte 40, inside a character, and rendering the error threw
// (nlohmann type_error 316). A long string is cut between characters and says how long it was.
TEST(InputError, ALongTextIsCutBetweenCharactersAndItsErrorRendersAsJson) {
  std::string text = "a";
  for (int i = 0; i < 300; ++i) text += "é";
  const InputError e = caught([&] { fields::as_int(json(text), "options.runs", 1, 100); });
  const std::string given = e.field().given;
  EXPECT_EQ(given.substr(0, 3), "\"a\xC3");
  const std::string end = "\"… (301 characters)";
  EXPECT_EQ(given.rfind(end), given.size() - end.size()) << given;
  EXPECT_NO_THROW(e.to_json().dump());
  EXPECT_EQ(json::parse(e.to_json().dump())["given"], given);
}

TEST(InputError, AShortValueIsEchoedWhole) {
  EXPECT_EQ(echo_value(json("aé")), "\"aé\"");
  EXPECT_EQ(echo_value(json::parse("[1, [2, 3], {\"a\": null}]")), "[1,[2,3],{\"a\":null}]");
  EXPECT_EQ(utf8_prefix("aéb", 2), "aé");
}

// A 7,000,000-element range was echoed whole: 14 MB of message.
TEST(InputError, AHugeListInAFieldGivesAShortMessage) {
  json workload = {{"count", 4}, {"prompt", json::array()}, {"answer", {4, 8}}};
  workload["prompt"].get_ref<json::array_t&>().assign(7'000'000, 1);
  const InputError e = caught([&] { sim::read_workload(workload); });
  EXPECT_EQ(e.field().path, "workload.prompt");
  EXPECT_LT(std::string(e.what()).size(), 400u) << std::string(e.what()).substr(0, 1000);
  EXPECT_LE(e.field().given.size(), kMaxEchoedChars + 30);
  EXPECT_NE(e.field().given.find("… (7,000,000 elements)"), std::string::npos) << e.field().given;
}

// A flag's text becomes JSON before it is read; an integer past 64 bits became 1e+20 in the message.
TEST(InputError, AsTypedEchoesTheTextTheUserTyped) {
  const InputError e = caught([&] { fields::as_int(json::parse("99999999999999999999"), "options.kv_tokens", 1, 10); });
  const InputError typed = e.as_typed("99999999999999999999");
  EXPECT_EQ(std::string(typed.what()), "options.kv_tokens must be an integer from 1 to 10 (got 99999999999999999999)");
  EXPECT_EQ(typed.field().given, "99999999999999999999");
  EXPECT_EQ(typed.field().allowed.max, 10);
  EXPECT_EQ(std::string(e.as_typed(std::string(kMaxEchoedChars + 1, '9')).what()), e.what());
}

}  // namespace
}  // namespace kvlab
