// The two backends of one policy book the same decisions: the policy's loop is one code, and this checks
// that the real backend (the engine) and the priced one (the simulator) agree on the passes and the
// bookkeeping it drives. The simulator prices steps with a table measured on the same model and
// machine, and each workload makes every decision independent of the exact step costs (arrivals all at
// t = 0, or in groups far enough apart that each group is done before the next arrives), so that the
// order of admissions, the grouping of finishes into steps, the slots and the number of forward passes
// must agree exactly, while the times need not (and are not compared).
#include <algorithm>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "measure/measure.h"
#include "model/model.h"
#include "serve/run_engine.h"
#include "serve_test_support.h"
#include "sim/simulate.h"

namespace kvlab::serve {
namespace {

using nlohmann::json;
using testing::mixed_workload;
using testing::test_policies;
using testing::tiny_measure_options;
using testing::tiny_model;
using testing::workload_json;

// Dense ranks of `keys`: equal keys share a rank, and ranks follow the keys' order.
template <class Key>
std::vector<int> dense_ranks(const std::vector<Key>& keys) {
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<int> ranks;
  for (const Key& key : keys)
    ranks.push_back(static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), key) - sorted.begin()));
  return ranks;
}

// Per request in workload order: when it was admitted (rank among prefills), when it finished (rank
// among the steps that finished something, shared by requests finished in one step), and its slot.
struct Events {
  std::vector<int> admission_rank, finish_rank, slot;
  long long forward_passes = 0;
};

Events engine_events(const EngineRun& run) {
  std::vector<long long> prefill_steps, finish_steps;
  Events events;
  for (const ServedRequest& request : run.requests) {
    prefill_steps.push_back(request.prefill_step);
    finish_steps.push_back(request.finish_step);
    events.slot.push_back(request.state.slot);
  }
  events.admission_rank = dense_ranks(prefill_steps);
  events.finish_rank = dense_ranks(finish_steps);
  events.forward_passes = static_cast<long long>(run.step_log.records().size());
  return events;
}

// The same from the simulator's result: every step costs more than 0 on a measured table, so distinct
// steps end at distinct times and a step's finishes share one time.
Events simulated_events(const json& result) {
  std::vector<double> prefill_starts, finishes;
  Events events;
  for (const json& request : result["requests"]) finishes.push_back(request["finish_ms"].get<double>());
  for (const json& entry : result["timeline"]) {
    if (entry["phase"] != "prefill") continue;
    prefill_starts.push_back(entry["start_ms"].get<double>());
    events.slot.push_back(entry["slot"].get<int>());
  }
  events.admission_rank = dense_ranks(prefill_starts);
  events.finish_rank = dense_ranks(finishes);
  events.forward_passes = result["steps"].get<long long>();
  return events;
}

void expect_same_decisions(const std::vector<policy::Request>& workload) {
  static const json steps = measure(read_measure_options(tiny_measure_options())).steps.to_json();
  Model model(tiny_model());
  sim::SimulateOptions options;
  options.timeline_requests = static_cast<int>(workload.size());
  const json simulated = sim::simulate_json(steps, workload_json(workload), test_policies(), options);
  for (const std::string& policy : test_policies()) {
    SCOPED_TRACE(policy);
    const Events real = engine_events(run_engine(model, workload, policy));
    const Events expected = simulated_events(simulated[policy]);
    EXPECT_EQ(real.admission_rank, expected.admission_rank);
    EXPECT_EQ(real.finish_rank, expected.finish_rank);
    EXPECT_EQ(real.slot, expected.slot);
    EXPECT_EQ(real.forward_passes, expected.forward_passes);
  }
}

TEST(EventOrder, AllAtZeroMatchesTheSimulator) { expect_same_decisions(mixed_workload()); }

TEST(EventOrder, ArrivalGroupsFarApartMatchTheSimulator) {
  // Each group takes about a millisecond on the tiny model, far less than the gaps: the server goes idle
  // and waits for each group, and a group of 2 then 3 then 1 meets every batching case again.
  std::vector<policy::Request> workload = mixed_workload(0);
  workload.resize(4);
  for (const policy::Request& request : std::vector<policy::Request>{{150, 6, 5}, {150, 2, 1}, {150, 11, 8}})
    workload.push_back(request);
  workload.push_back({300, 3, 4});
  workload.push_back({150, 1, 2});  // listed last, arrives with the second group: queue order is arrival order
  expect_same_decisions(workload);
}

TEST(EventOrder, StaticBatchRowsComputeAsPaddingUntilTheLongestAnswer) {
  // What the cost model charges a static batch: decode step k over all R members at contexts p_i + k,
  // finished or not. The step log holds every forward pass the engine really ran.
  Model model(tiny_model());
  const std::vector<policy::Request> workload = mixed_workload();
  const int batch_rows = 4;
  const EngineRun run = run_engine(model, workload, "static:" + std::to_string(batch_rows));
  std::vector<std::vector<int>> expected_decode_contexts;
  for (size_t first = 0; first < workload.size(); first += batch_rows) {
    const size_t end = std::min(workload.size(), first + batch_rows);
    int longest_answer = 0;
    for (size_t i = first; i < end; ++i) longest_answer = std::max(longest_answer, workload[i].answer_tokens);
    for (int k = 1; k < longest_answer; ++k) {
      std::vector<int> contexts;
      for (size_t i = first; i < end; ++i) contexts.push_back(workload[i].prompt_tokens + k);
      expected_decode_contexts.push_back(contexts);
    }
  }
  std::vector<std::vector<int>> decode_contexts;
  for (const StepRecord& record : run.step_log.records()) {
    if (record.kind != StepKind::decode) continue;
    const int* contexts = run.step_log.contexts(record);
    decode_contexts.emplace_back(contexts, contexts + record.sequences);
  }
  EXPECT_EQ(decode_contexts, expected_decode_contexts);
}

}  // namespace
}  // namespace kvlab::serve
