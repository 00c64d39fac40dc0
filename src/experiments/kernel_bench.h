#pragma once
// The speed benchmark behind `kvlab bench` (natively, and under Node in the wasm SIMD and scalar
// builds): the decode step, what extra rows cost, matrix kernels against a measured arithmetic peak,
// the one-answer comparison, and the simulator's own speed. Timings only: nothing here asserts.
#include <string>

#include <nlohmann/json.hpp>

#include "measure/measure.h"

namespace kvlab::experiments {

struct BenchOptions {
  MeasureOptions measure;       // the model (default preset) and the timing policy
  int answer_runs = 5;          // Part A runs per path; 0 skips Part A (slow builds)
  bool simulator = true;        // also time the simulator
  bool weight_formats = false;  // also time the 1- and 16-row steps in f32, bf16 and each block format, interleaved
  bool kv_formats = false;      // also time 1- and 16-row steps at two contexts with f32, bf16 and f16 KV, interleaved
  bool thread_scaling = false;  // also time the 1- and 16-row steps, a prefill and a weights-sized read on
                                // 1, 2, 4 .. measure.threads threads, and a fork and join (every other
                                // section runs on one thread)
};

// { "measure": {measure options}, "answer_runs": 0..100, "simulator": bool, "weight_formats": bool,
//   "kv_formats": bool, "thread_scaling": bool },
// all optional; the timing
// defaults to longer samples than measure's (20 ms x 7) since these figures are compared across builds.
// With `file`, the benchmark times that model (read_measure_options).
BenchOptions read_bench_options(const nlohmann::json& object, const std::string& path = "options",
                                const FileModelRef& file = {});

// FLOPs of one decode step of one row at `context`: 2 per multiply-add of every weight matrix, plus
// the attention's two products over the context.
double decode_step_flops(const ModelConfig& config, int context);

nlohmann::json run_kernel_bench(const BenchOptions& options, const ProgressFn& progress = nullptr);

// The result as a text table.
std::string format_kernel_bench(const nlohmann::json& result);

}  // namespace kvlab::experiments
