#include "measure/thread_check.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "measure/measure.h"
#include "model/generate.h"

namespace kvlab {

const std::vector<int>& thread_check_rows() {
  static const std::vector<int> rows = {1, 16};
  return rows;
}

namespace {

std::string row_words(int rows) { return rows == 1 ? "a one-row step" : "a " + std::to_string(rows) + "-row step"; }

std::string format(const char* pattern, double a, double b, double c) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

}  // namespace

nlohmann::json ThreadChoice::to_json() const {
  return {{"asked", asked},
          {"used", used},
          {"rows", thread_check_rows()},
          {"one_thread_ms", timings.one_thread_ms},
          {"asked_threads_ms", timings.asked_threads_ms},
          {"reason", reason}};
}

ThreadChoice choose_threads(int asked, const ThreadCheckTimings& timings) {
  ThreadChoice choice{asked, asked, timings, ""};
  const std::vector<int>& rows = thread_check_rows();
  // The step where the threads gain least decides.
  size_t worst = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    if (timings.asked_threads_ms[i] * timings.one_thread_ms[worst] >
        timings.asked_threads_ms[worst] * timings.one_thread_ms[i])
      worst = i;
  const double ratio = timings.asked_threads_ms[worst] / timings.one_thread_ms[worst];
  const std::string counts = std::to_string(asked) + " threads";
  if (ratio < 1.0) {
    choice.reason = counts +
                    format(" were faster than one: %.2fx its time at most (%.3f against %.3f ms for ", ratio,
                           timings.asked_threads_ms[worst], timings.one_thread_ms[worst]) +
                    row_words(rows[worst]) + ").";
    return choice;
  }
  choice.used = 1;
  choice.reason = counts +
                  format(" took %.2fx one thread's time (%.3f against %.3f ms for ", ratio,
                         timings.asked_threads_ms[worst], timings.one_thread_ms[worst]) +
                  row_words(rows[worst]) +
                  "), so this run used one: other work was presumably running on this device's cores.";
  return choice;
}

ThreadChoice check_threads(Model& model, int asked, const TimingPolicy& policy) {
  const ModelConfig& c = model.config();
  const std::vector<int>& rows = thread_check_rows();
  const int context = std::min(kThreadCheckContext, c.max_seq);
  RepeatableDecodeRows decode(model, c, rows.back(), context, 17);
  model.reserve_rows(rows.back());
  // Each sample's untimed first run switches the model's threads; its timed runs find them set.
  std::vector<std::function<void()>> steps;
  std::vector<std::vector<Row>> batches;
  for (int n : rows) batches.push_back(decode.rows(n, context));
  for (int threads : {1, asked})
    for (const std::vector<Row>& batch : batches)
      steps.push_back([&model, &batch, threads] {
        model.set_threads(threads);
        model.forward(batch);
      });
  const std::vector<StepTiming> t = time_steps_interleaved(steps, {policy.min_sample_ms, kThreadCheckSamples});
  ThreadCheckTimings timings;
  for (size_t i = 0; i < rows.size(); ++i) {
    timings.one_thread_ms.push_back(t[i].median_ms);
    timings.asked_threads_ms.push_back(t[rows.size() + i].median_ms);
  }
  ThreadChoice choice = choose_threads(asked, timings);
  model.set_threads(choice.used);
  return choice;
}

}  // namespace kvlab
