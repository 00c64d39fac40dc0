// Requests checked against the step table's model.max_seq: simulate_json() refuses a request that could
// not run on the table's model, naming the field to change and its range; a table without max_seq (built
// by hand, or by roofline) checks nothing.
#include "sim/context_fit.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "sim/simulate.h"
#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using nlohmann::json;
using testing::linear_steps;
using testing::workload_json;

json steps_with_max_seq(int max_seq) {
  json steps = linear_steps();
  steps["model"] = {{"preset", "tiny"}, {"max_seq", max_seq}};
  return steps;
}

FieldError field_of(const json& steps, const json& workload) {
  try {
    simulate_json(steps, workload, {"continuous:4"});
  } catch (const InputError& error) {
    return error.field();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ContextFit, AnExplicitRequestPastMaxSeqNamesItsAnswerAndRange) {
  const json workload = workload_json({{0, 100, 61}, {0, 150, 20}});  // 160 fits; 169 does not
  const FieldError field = field_of(steps_with_max_seq(160), workload);
  EXPECT_EQ(field.path, "workload.requests[1].answer");
  EXPECT_EQ(field.given, "20");
  EXPECT_EQ(field.allowed.min, 1);
  EXPECT_EQ(field.allowed.max, 11);
}

TEST(ContextFit, APromptAloneTooLongNamesThePrompt) {
  const FieldError field = field_of(steps_with_max_seq(160), workload_json({{0, 100000, 1}}));
  EXPECT_EQ(field.path, "workload.requests[0].prompt");
  EXPECT_EQ(field.allowed.max, 160);
}

TEST(ContextFit, AGeneratedWorkloadNamesTheUpperEndOfItsLengths) {
  const json uniform = {{"count", 50}, {"prompt", {8, 32}}, {"answer", {16, 200}}};
  EXPECT_EQ(field_of(steps_with_max_seq(160), uniform).path, "workload.answer[1]");
  const json pareto = {
      {"count", 50}, {"prompt", {{"kind", "pareto"}, {"range", {100, 1000}}, {"alpha", 1}}}, {"answer", {1, 2}}};
  EXPECT_EQ(field_of(steps_with_max_seq(160), pareto).path, "workload.prompt.range[1]");
}

TEST(ContextFit, TheMessageSaysThePositionsAndTheTablesMaxSeq) {
  try {
    simulate_json(steps_with_max_seq(160), workload_json({{0, 150, 20}}), {"serial-cache"});
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("must be from 1 to 11"), std::string::npos) << message;
    EXPECT_NE(message.find("169 positions"), std::string::npos) << message;
    EXPECT_NE(message.find("model.max_seq = 160"), std::string::npos) << message;
  }
}

TEST(ContextFit, RequestsThatFitAndTablesWithoutMaxSeqRun) {
  const json fits = workload_json({{0, 100, 61}});
  EXPECT_NO_THROW(simulate_json(steps_with_max_seq(160), fits, {"continuous:4"}));
  EXPECT_NO_THROW(simulate_json(linear_steps(), workload_json({{0, 100000, 5}}), {"continuous:4"}));
}

TEST(ContextFit, ABadMaxSeqIsNamed) {
  json steps = linear_steps();
  steps["model"] = {{"max_seq", "long"}};
  try {
    simulate_json(steps, workload_json({{0, 3, 2}}), {"continuous:4"});
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field().path, "steps.model.max_seq");
  }
}

}  // namespace
}  // namespace kvlab::sim
