#include "lab/kernel_bench.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "bench/measure_report.h"
#include "bench/step_timer.h"
#include "common/json_fields.h"
#include "common/text_format.h"
#include "model/generate.h"
#include "model/kernels.h"
#include "model/model.h"
#include "model/simd_arch.h"
#include "sim/simulate.h"

namespace kvlab {

using nlohmann::json;

namespace {

json timing_json(const StepTiming& t, double flops) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms},     {"max_ms", t.max_ms},
          {"repeats", t.repeats},     {"samples", t.samples}, {"gflops", flops / (t.median_ms * 1e6)}};
}

// Peak arithmetic of this build: many independent multiply-add chains on registers, no memory.
// Each chain is a*x+b with |a| < 1, so the values stay bounded however long it runs.
double measure_peak_gflops(const TimingPolicy& policy) {
  constexpr int kChains = 12, kIterations = 4096;
  volatile float sink = 0;
#if KVLAB_SIMD
  using Batch = kernels::FloatBatch;
  constexpr int kLanes = static_cast<int>(Batch::size);
  auto body = [&] {
    Batch acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = Batch(0.001f * c);
    const Batch a(0.999f), b(0.001f);
    for (int i = 0; i < kIterations; ++i)
      for (int c = 0; c < kChains; ++c) acc[c] = xsimd::fma(acc[c], a, b);
    Batch total = acc[0];
    for (int c = 1; c < kChains; ++c) total += acc[c];
    sink = sink + xsimd::hadd(total);
  };
#else
  constexpr int kLanes = 1;
  auto body = [&] {
    float acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = 0.001f * c;
    for (int i = 0; i < kIterations; ++i)
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999f + 0.001f;
    float total = 0;
    for (float x : acc) total += x;
    sink = sink + total;
  };
#endif
  StepTiming t = time_step(body, policy);
  // The fastest sample: a peak is what the hardware can do, and a busy second core only lowers it.
  return 2.0 * kLanes * kChains * kIterations / (t.min_ms * 1e6);
}

// Streaming read bandwidth over a buffer as large as the model's weights, read over and over the way
// one-row decode steps read them: a decode step cannot take less than weight_bytes / this.
double measure_read_gb_per_s(int64_t bytes, const TimingPolicy& policy) {
  const size_t n = static_cast<size_t>(bytes / 4 / 64 * 64);  // whole blocks of 64 floats: 8 aligned segments
  FloatBuffer buffer(n, 1.0f);
  volatile float sink = 0;
  // Eight segments read side by side, as the matmul reads eight weight panels: one stream alone
  // reaches only part of the bandwidth (the hardware prefetcher tracks several streams).
  constexpr size_t kStreams = 8;
  const size_t segment = n / kStreams;
#if KVLAB_SIMD
  using Batch = kernels::FloatBatch;
  auto body = [&] {
    Batch sum[kStreams];
    for (Batch& s : sum) s = Batch(0.0f);
    for (size_t i = 0; i < segment; i += Batch::size)
      for (size_t k = 0; k < kStreams; ++k) sum[k] += Batch::load_aligned(buffer.data() + k * segment + i);
    Batch total = sum[0];
    for (size_t k = 1; k < kStreams; ++k) total += sum[k];
    sink = sink + xsimd::hadd(total);
  };
#else
  auto body = [&] {
    float sum[kStreams] = {};
    for (size_t i = 0; i < segment; ++i)
      for (size_t k = 0; k < kStreams; ++k) sum[k] += buffer[k * segment + i];
    sink = sink + sum[0] + sum[kStreams - 1];
  };
#endif
  StepTiming t = time_step(body, policy);
  return 4.0 * n / (t.min_ms * 1e6);  // the fastest sample, as for the peak
}

// One weight matrix of the model times 1 row (matrix-vector) and 16 rows (matrix-matrix).
json measure_matrix_kernels(const Model& model, const TimingPolicy& policy) {
  const PackedMatrix& w = model.weights().layers[0].w_gate;
  std::vector<float> x(static_cast<size_t>(16) * w.n_in, 0.5f), out(static_cast<size_t>(16) * w.n_out);
  json result;
  for (int rows : {1, 16}) {
    StepTiming t = time_step([&] { kernels::matmul(out.data(), x.data(), w, rows); }, policy);
    result[rows == 1 ? "matvec" : "matmul16"] = timing_json(t, 2.0 * rows * w.n_out * w.n_in);
  }
  result["matrix"] = {{"n_out", w.n_out}, {"n_in", w.n_in}, {"bytes", 4.0 * w.n_out * w.n_in}};
  return result;
}

// Decode steps of 1 and 16 rows at each context, every row with its own cache.
json measure_decode(Model& model, const TimingPolicy& policy, const std::vector<int>& contexts) {
  const ModelConfig& c = model.config();
  const int max_context = contexts.back();
  std::vector<KvCache> caches(16, KvCache(c, max_context));
  std::vector<int> history = make_prompt(max_context, c.vocab, 11);
  prefill(model, caches[0], history.data(), max_context - 1, 0);
  for (KvCache& cache : caches) cache = caches[0];
  model.reserve_rows(16);

  json result = json::array();
  for (int context : contexts) {
    json entry = {{"context", context}};
    for (int rows : {1, 16}) {
      std::vector<Row> batch;
      for (int r = 0; r < rows; ++r) batch.push_back(Row{history[context - 1], &caches[r], context - 1, true});
      StepTiming t = time_step([&] { model.forward(batch); }, policy);
      entry[rows == 1 ? "rows1" : "rows16"] = timing_json(t, rows * decode_step_flops(c, context));
    }
    entry["rows1"]["gb_per_s"] = model_size(c).weight_bytes / (entry["rows1"]["median_ms"].get<double>() * 1e6);
    entry["tokens_per_s_ratio"] = 16.0 * entry["rows1"]["median_ms"].get<double>() / entry["rows16"]["median_ms"].get<double>();
    result.push_back(entry);
  }
  return result;
}

// The one-row step at `context` with the same weights in f32 and in bf16, timed interleaved (a sample
// of each in turn) so that a loaded machine slows both alike: bf16 streams about half the bytes.
json measure_weight_formats(ModelConfig config, const TimingPolicy& policy, int context) {
  json result = json::object();
  std::vector<std::unique_ptr<Model>> models;
  std::vector<KvCache> caches;
  std::vector<std::vector<Row>> rows;
  const std::vector<int> history = make_prompt(context, config.vocab, 11);
  for (WeightFormat format : {WeightFormat::f32, WeightFormat::bf16}) {
    config.weights = format;
    models.push_back(std::make_unique<Model>(config));
    caches.emplace_back(config, context);
  }
  for (size_t m = 0; m < models.size(); ++m) {
    prefill(*models[m], caches[m], history.data(), context - 1, 0);
    rows.push_back({Row{history[context - 1], &caches[m], context - 1, true}});
  }
  std::vector<std::function<void()>> steps;
  for (size_t m = 0; m < models.size(); ++m) steps.push_back([&, m] { models[m]->forward(rows[m]); });
  const std::vector<StepTiming> t = time_steps_interleaved(steps, policy);
  for (size_t m = 0; m < models.size(); ++m) {
    const ModelConfig& c = models[m]->config();
    json entry = timing_json(t[m], decode_step_flops(c, context));
    entry["weight_bytes"] = model_size(c).weight_bytes;
    entry["gb_per_s"] = model_size(c).weight_bytes / (t[m].median_ms * 1e6);
    result[weight_format_name(c.weights)] = entry;
  }
  result["context"] = context;
  result["bf16_over_f32"] = t[1].median_ms / t[0].median_ms;
  return result;
}

// Decode steps of 1 and 16 rows at a middle and the longest context with the KV cache in f32, bf16 and
// f16, every cell timed interleaved with the others (a loaded machine slows all alike). One model serves
// every format: the format is the caches' (each cache's pool holds its own numbers), the weights the same.
json measure_kv_formats(const ModelConfig& config, const TimingPolicy& policy) {
  const std::vector<KvFormat> formats = {KvFormat::f32, KvFormat::bf16, KvFormat::f16};
  const int longest = config.max_seq;
  std::vector<int> contexts = {std::min(64, longest), longest};
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  const std::vector<int> row_counts = {1, 16};
  Model model(config);
  model.reserve_rows(row_counts.back());
  const std::vector<int> history = make_prompt(longest, config.vocab, 11);
  std::vector<std::vector<KvCache>> caches;  // [format][row]: each row's cache holds the history
  for (KvFormat format : formats) {
    ModelConfig c = config;
    c.kv = format;
    KvCache first(c, longest);
    prefill(model, first, history.data(), longest - 1, 0);
    caches.emplace_back(static_cast<size_t>(row_counts.back()), first);
  }
  std::vector<std::vector<Row>> batches;  // [cell][row], cells in order context, rows, format
  for (int context : contexts)
    for (int rows : row_counts)
      for (size_t f = 0; f < formats.size(); ++f) {
        std::vector<Row> batch;
        for (int r = 0; r < rows; ++r) batch.push_back(Row{history[context - 1], &caches[f][r], context - 1, true});
        batches.push_back(batch);
      }
  std::vector<std::function<void()>> steps;
  for (size_t i = 0; i < batches.size(); ++i) steps.push_back([&, i] { model.forward(batches[i]); });
  const std::vector<StepTiming> t = time_steps_interleaved(steps, policy);

  json cells = json::array(), bytes_per_token = json::object();
  size_t cell = 0;
  for (int context : contexts)
    for (int rows : row_counts) {
      json entry = {{"context", context}, {"rows", rows}};
      for (KvFormat format : formats) entry[kv_format_name(format)] = timing_json(t[cell++], rows * decode_step_flops(config, context));
      for (const char* name : {"bf16", "f16"})
        entry[std::string(name) + "_over_f32"] = entry[name]["median_ms"].get<double>() / entry["f32"]["median_ms"].get<double>();
      cells.push_back(entry);
    }
  for (KvFormat format : formats) {
    ModelConfig c = config;
    c.kv = format;
    bytes_per_token[kv_format_name(format)] = model_size(c).kv_bytes_per_token;
  }
  return {{"contexts", contexts}, {"rows", row_counts}, {"kv_bytes_per_token", bytes_per_token}, {"cells", cells}};
}

// A step table shaped like a measured one, for timing the simulator alone.
json synthetic_steps() {
  json ms = json::array();
  for (double rows : {1, 2, 4, 8, 16}) {
    json row = json::array();
    for (double context : {8, 16, 32, 64, 128}) row.push_back(1.5 + 0.3 * rows + 0.002 * rows * context);
    ms.push_back(row);
  }
  return {{"decode", {{"rows", {1, 2, 4, 8, 16}}, {"contexts", {8, 16, 32, 64, 128}}, {"ms", ms}}},
          {"prefill", {{"tokens", {1, 2, 4, 8, 16, 32, 64, 128}}, {"ms", {1.5, 1.6, 1.8, 2.2, 3.0, 4.6, 7.8, 14.2}}}}};
}

json measure_simulator() {
  const json steps = synthetic_steps();
  const json lab_queue = {{"count", 1000}, {"prompt", {8, 32}}, {"answer", {16, 96}}, {"seed", 1}};
  const std::vector<std::string> four = sim::default_policies();
  auto time_once = [](const auto& body) {
    double start = now_ms();
    body();
    return now_ms() - start;
  };
  const double cold_ms = time_once([&] { sim::simulate(steps, lab_queue, four); });
  std::vector<double> warm;
  for (int i = 0; i < 5; ++i) warm.push_back(time_once([&] { sim::simulate(steps, lab_queue, four); }));

  json big_queue = lab_queue;
  big_queue["count"] = 100000;
  json big_result;
  const double big_ms = time_once([&] { big_result = sim::simulate(steps, big_queue, {"continuous:16"}, {0}); });
  const double steps_run = big_result["continuous:16"]["steps"].get<double>();
  return {{"lab_queue_4_policies_ms", {{"first_call", cold_ms}, {"median", summarise(warm).median_ms}}},
          {"requests_100000_continuous16_ms", big_ms},
          {"requests_per_s", 100000 / (big_ms / 1000)},
          {"simulated_steps_per_s", steps_run / (big_ms / 1000)}};
}

}  // namespace

BenchOptions read_bench_options(const json& object, const std::string& path) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path, {"measure", "answer_runs", "simulator", "weight_formats", "kv_formats"});
  json measure_object = object.value("measure", json::object());
  if (measure_object.is_object()) {
    if (!measure_object.contains("min_sample_ms")) measure_object["min_sample_ms"] = 20;
    if (!measure_object.contains("samples")) measure_object["samples"] = 7;
  }
  BenchOptions o;
  o.measure = read_measure_options(measure_object, fields::join(path, "measure"));
  o.answer_runs = static_cast<int>(fields::read_int(object, path, "answer_runs", o.answer_runs, 0, 100));
  o.simulator = fields::read_bool(object, path, "simulator", o.simulator);
  o.weight_formats = fields::read_bool(object, path, "weight_formats", o.weight_formats);
  o.kv_formats = fields::read_bool(object, path, "kv_formats", o.kv_formats);
  return o;
}

double decode_step_flops(const ModelConfig& c, int context) {
  const double d = c.d_model, kv = c.kv_dim(), ff = c.d_ff;
  const double weights = c.n_layers * (2 * d * d + 2 * kv * d + 3 * d * ff) + c.vocab * d;
  const double attention = c.n_layers * 2.0 * 2.0 * c.n_heads * c.head_dim() * context;
  return 2 * weights + attention;
}

json run_kernel_bench(const BenchOptions& o, const ProgressFn& progress) {
  auto report = [&](double fraction, const char* phase) {
    if (progress) progress(fraction, phase);
  };
  TimingPolicy policy = o.measure.timing;
  Model model(o.measure.model);
  json result = {{"instruction_set", kernels::instruction_set()}, {"kvlab_arch", kernels::arch_setting()},
                 {"model", model_info(o.measure)}};

  report(0.0, "arithmetic peak");
  result["peak_gflops"] = measure_peak_gflops(policy);
  report(0.05, "memory bandwidth");
  result["read_gb_per_s"] = measure_read_gb_per_s(model_size(o.measure.model).weight_bytes, policy);
  report(0.1, "matrix kernels");
  result["matrix"] = measure_matrix_kernels(model, policy);
  result["gemm_fraction_of_peak"] = result["matrix"]["matmul16"]["gflops"].get<double>() / result["peak_gflops"].get<double>();
  report(0.2, "decode steps");
  constexpr int kLimitsContext = 64;  // the context of the published lab's decode figures
  result["decode"] = measure_decode(model, policy, {16, kLimitsContext, 128});
  // How close the one-row step comes to its memory limit and the 16-row step to its arithmetic limit,
  // each against the limit this same build measured.
  const json& at_limits = result["decode"][1];
  result["decode_fraction_of_bandwidth"] = at_limits["rows1"]["gb_per_s"].get<double>() / result["read_gb_per_s"].get<double>();
  result["rows16_fraction_of_peak"] = at_limits["rows16"]["gflops"].get<double>() / result["peak_gflops"].get<double>();
  if (o.weight_formats) {
    report(0.45, "weight formats");
    result["weight_formats"] = measure_weight_formats(o.measure.model, policy, kLimitsContext);
  }
  if (o.kv_formats) {
    report(0.47, "KV formats");
    result["kv_formats"] = measure_kv_formats(o.measure.model, policy);
  }
  if (o.answer_runs > 0) {
    report(0.5, "one answer");
    MeasureOptions answer_only = o.measure;
    answer_only.runs = o.answer_runs;
    answer_only.decode_rows = {1};
    answer_only.decode_contexts = {8};
    answer_only.prefill_tokens = {1};
    answer_only.timing = {0.1, 1};
    result["answer"] = measure(answer_only)["answer"];
    result["answer"].erase("prompt");
  }
  if (o.simulator) {
    report(0.9, "simulator");
    result["simulator"] = measure_simulator();
  }
  report(1.0, "done");
  return result;
}

std::string format_kernel_bench(const json& r) {
  std::string text;
  text += format("kvlab bench: %s, model %s (%.1f MB of weights)\n", instruction_set_text(r["model"]).c_str(),
      r["model"]["preset"].get<std::string>().c_str(), r["model"]["weight_bytes"].get<double>() / 1e6);
  text += format("arithmetic peak (multiply-add chains)   %8.1f GFLOP/s\n", r["peak_gflops"].get<double>());
  text += format("read bandwidth over the weights' size   %8.1f GB/s\n", r["read_gb_per_s"].get<double>());
  const json& m = r["matrix"];
  text += format("matrix-vector %dx%d, 1 row            %8.1f GFLOP/s  (%.3f ms)\n", m["matrix"]["n_out"].get<int>(),
      m["matrix"]["n_in"].get<int>(), m["matvec"]["gflops"].get<double>(), m["matvec"]["median_ms"].get<double>());
  text += format("matrix-matrix, 16 rows                  %8.1f GFLOP/s  (%.3f ms), %.0f%% of peak\n", m["matmul16"]["gflops"].get<double>(),
      m["matmul16"]["median_ms"].get<double>(), 100 * r["gemm_fraction_of_peak"].get<double>());
  text += format("decode step     1 row ms   16 rows ms   tokens/s gain   1 row GFLOP/s   1 row weights GB/s\n");
  for (const json& d : r["decode"])
    text += format("context %-5d %10.3f %12.3f %13.2fx %15.1f %20.1f\n", d["context"].get<int>(), d["rows1"]["median_ms"].get<double>(),
        d["rows16"]["median_ms"].get<double>(), d["tokens_per_s_ratio"].get<double>(), d["rows1"]["gflops"].get<double>(),
        d["rows1"]["gb_per_s"].get<double>());
  text += format("at context 64: 1 row streams the weights at %.0f%% of the read bandwidth; 16 rows compute at %.0f%% of the peak\n",
      100 * r["decode_fraction_of_bandwidth"].get<double>(), 100 * r["rows16_fraction_of_peak"].get<double>());
  if (r.contains("weight_formats")) {
    const json& w = r["weight_formats"];
    text += format("one row at context %d, interleaved: f32 %.3f ms (%.1f GB/s), bf16 %.3f ms (%.1f GB/s); bf16 / f32 time %.2f\n",
        w["context"].get<int>(), w["f32"]["median_ms"].get<double>(), w["f32"]["gb_per_s"].get<double>(),
        w["bf16"]["median_ms"].get<double>(), w["bf16"]["gb_per_s"].get<double>(), w["bf16_over_f32"].get<double>());
  }
  if (r.contains("kv_formats")) {
    text += "KV cache format, interleaved   f32 ms   bf16 ms   f16 ms   bf16/f32   f16/f32\n";
    for (const json& c : r["kv_formats"]["cells"])
      text += format("context %-4d %3d row%s %12.3f %9.3f %8.3f %10.2f %9.2f\n", c["context"].get<int>(), c["rows"].get<int>(),
          c["rows"].get<int>() == 1 ? " " : "s", c["f32"]["median_ms"].get<double>(), c["bf16"]["median_ms"].get<double>(),
          c["f16"]["median_ms"].get<double>(), c["bf16_over_f32"].get<double>(), c["f16_over_f32"].get<double>());
  }
  if (r.contains("answer")) {
    const json& a = r["answer"];
    text += format("one answer (%d + %d tokens): no cache %.2f ms, KV cache %.2f ms, %.1fx\n", a["prompt_tokens"].get<int>(),
        a["answer_tokens"].get<int>(), a["nocache_ms"]["median"].get<double>(), a["cache_ms"]["median"].get<double>(),
        a["ratio"].get<double>());
  }
  if (r.contains("simulator")) {
    const json& s = r["simulator"];
    text += format("simulate 1,000 requests x 4 policies: %.1f ms (first call %.1f ms)\n",
        s["lab_queue_4_policies_ms"]["median"].get<double>(), s["lab_queue_4_policies_ms"]["first_call"].get<double>());
    text += format("simulate 100,000 requests, continuous:16: %.0f ms (%.0f requests/s, %.2g steps/s)\n",
        s["requests_100000_continuous16_ms"].get<double>(), s["requests_per_s"].get<double>(),
        s["simulated_steps_per_s"].get<double>());
  }
  return text;
}

}  // namespace kvlab
