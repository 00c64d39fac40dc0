#include "roofline/published_figures.h"

#include <cmath>

#include "common/text_format.h"
#include "roofline/step_cost.h"

namespace kvlab::roofline {

using nlohmann::json;

namespace {

constexpr FigureSource kLlamaCppTable = {
    "llama.cpp benchmarks",
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README (commit 00dd2bd), llama.cpp on RunPod, snapshot May 2024",
    "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/blob/00dd2bd/README.md"};
constexpr FigureSource kTrtLatency = {
    "TensorRT-LLM, low latency",
    "TensorRT-LLM docs/source/performance.md (commit 138f96d), Low Latency tables (TensorRT-LLM v0.5)",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d/docs/source/performance.md"};
constexpr FigureSource kTrtThroughput = {
    "TensorRT-LLM, peak throughput",
    "TensorRT-LLM docs/source/performance.md (commit 138f96d), Peak Throughput tables (TensorRT-LLM v0.6.1)",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d/docs/source/performance.md"};
// Likely cause of the 70B long-output gap (our reading, not the source's): TensorRT-LLM 0.6's generation
// attention read each KV head once per query head it serves (8 times for Llama 2 70B); the model assumes a
// kernel that reads it once per group, as later releases (XQA) do.
constexpr const char* kGqaKernels =
    "attention kernels of the time read a GQA KV head once per query head, the model once";
constexpr const char* kLaunchLatency =
    "the measured first-token latency carries fixed costs of 4 to 20 ms that a step-time model has no term for";
constexpr FigureSource kVllmSweep = {
    "vLLM sweep on an A100", "John Musgrave, \"vLLM throughput-latency sweep on NVIDIA A100\" (johnmusgrave.com)",
    "https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on"};

constexpr NumberFormat bf16 = NumberFormat::bf16, fp8 = NumberFormat::fp8;
constexpr Metric decode = Metric::decode_tokens_per_s, ttft = Metric::ttft_ms, prefill = Metric::prefill_tokens_per_s,
                 batch = Metric::batch_tokens_per_s_per_gpu;

}  // namespace

// LLaMA 7B / 70B in the TensorRT-LLM tables are Llama 2 7B / 70B (its methodology section builds
// Llama2-7b and Llama2-70b); FP8 runs there use --enable_fp8 --fp8_kv_cache, A100 runs FP16. llama.cpp's F16
// has BF16's size; Llama 3 8B has Llama 3.1 8B's shape. Left out: the A100 throughput rows with TP > 1, whose
// table says "out tok/s" where the H100 table says "out tok/s/GPU", so that a total and a per-GPU figure
// cannot be told apart; the L40S rows (no preset).
const std::vector<PublishedFigure>& published_figures() {
  static const std::vector<PublishedFigure> figures = {
      {"4090-8b-tg512", kLlamaCppTable,
       "llama-bench tg 512: 512 tokens generated from an empty context, batch 1, Llama 3 8B F16", "rtx-4090",
       "llama-3.1-8b", bf16, bf16, 1, decode, 1, 0, 512, 54.84, true},
      {"4090-8b-tg4096", kLlamaCppTable, "llama-bench tg 4096, batch 1, Llama 3 8B F16", "rtx-4090", "llama-3.1-8b",
       bf16, bf16, 1, decode, 1, 0, 4096, 52.63, false},
      {"4090-8b-pp512", kLlamaCppTable, "llama-bench pp 512: one 512-token prompt, Llama 3 8B F16", "rtx-4090",
       "llama-3.1-8b", bf16, bf16, 1, prefill, 1, 512, 0, 9382.00, false},
      {"4090-8b-pp4096", kLlamaCppTable, "llama-bench pp 4096, Llama 3 8B F16", "rtx-4090", "llama-3.1-8b", bf16, bf16,
       1, prefill, 1, 4096, 0, 6531.36, false},
      {"4090-7b-eval", kLlamaCppTable,
       "average eval speed, Llama 2 7B f16, main -n 1024 after the README's prompt (taken as contexts 1..1024)",
       "rtx-4090", "llama-2-7b", bf16, bf16, 1, decode, 1, 0, 1024, 60.78, false},
      {"a100-40gb-8b-c1", kVllmSweep,
       "vLLM 0.23.0, Llama 3.1 8B Instruct BF16, A100 40GB, 1024-token input, 128-token output, concurrency 1: \"about 75 tokens/sec\"",
       "a100-40gb-sxm", "llama-3.1-8b", bf16, bf16, 1, decode, 1, 1024, 127, 75, true},
      {"h100-7b-ttft128", kTrtLatency, "1st token latency, batch 1, TP 1, input 128, FP8", "h100-sxm", "llama-2-7b",
       fp8, fp8, 1, ttft, 1, 128, 1, 7, false, kLaunchLatency},
      {"h100-7b-ttft2048", kTrtLatency, "1st token latency, batch 1, TP 1, input 2048, FP8", "h100-sxm", "llama-2-7b",
       fp8, fp8, 1, ttft, 1, 2048, 1, 36, false},
      {"h100-70b-ttft128", kTrtLatency, "1st token latency, batch 1, TP 4, input 128, FP8", "h100-sxm", "llama-2-70b",
       fp8, fp8, 4, ttft, 1, 128, 1, 26, false, kLaunchLatency},
      {"h100-70b-ttft2048", kTrtLatency, "1st token latency, batch 1, TP 4, input 2048, FP8", "h100-sxm", "llama-2-70b",
       fp8, fp8, 4, ttft, 1, 2048, 1, 109, false},
      {"a100-7b-ttft128", kTrtLatency, "1st token latency, batch 1, TP 1, input 128, FP16", "a100-sxm", "llama-2-7b",
       bf16, bf16, 1, ttft, 1, 128, 1, 16, false, kLaunchLatency},
      {"a100-7b-ttft2048", kTrtLatency, "1st token latency, batch 1, TP 1, input 2048, FP16", "a100-sxm", "llama-2-7b",
       bf16, bf16, 1, ttft, 1, 2048, 1, 133, true},
      {"a100-70b-ttft128", kTrtLatency, "1st token latency, batch 1, TP 4, input 128, FP16", "a100-sxm", "llama-2-70b",
       bf16, bf16, 4, ttft, 1, 128, 1, 47, false, kLaunchLatency},
      {"a100-70b-ttft2048", kTrtLatency, "1st token latency, batch 1, TP 4, input 2048, FP16", "a100-sxm",
       "llama-2-70b", bf16, bf16, 4, ttft, 1, 2048, 1, 377, false},
      {"h100-7b-b768", kTrtThroughput, "static batch 768, TP 1, input 128, output 128, FP8; output tokens/s per GPU",
       "h100-sxm", "llama-2-7b", fp8, fp8, 1, batch, 768, 128, 128, 19694, true},
      {"h100-7b-b112", kTrtThroughput, "static batch 112, TP 1, input 128, output 2048, FP8", "h100-sxm", "llama-2-7b",
       fp8, fp8, 1, batch, 112, 128, 2048, 6818, false},
      {"h100-7b-b80", kTrtThroughput, "static batch 80, TP 1, input 2048, output 128, FP8", "h100-sxm", "llama-2-7b",
       fp8, fp8, 1, batch, 80, 2048, 128, 2244, false},
      {"h100-7b-b48", kTrtThroughput, "static batch 48, TP 1, input 2048, output 2048, FP8", "h100-sxm", "llama-2-7b",
       fp8, fp8, 1, batch, 48, 2048, 2048, 2740, false},
      {"h100-70b-b1024", kTrtThroughput, "static batch 1024, TP 2, input 128, output 128, FP8", "h100-sxm",
       "llama-2-70b", fp8, fp8, 2, batch, 1024, 128, 128, 2657, false, kGqaKernels},
      {"h100-70b-b480", kTrtThroughput, "static batch 480, TP 4, input 128, output 2048, FP8", "h100-sxm",
       "llama-2-70b", fp8, fp8, 4, batch, 480, 128, 2048, 1486, false, kGqaKernels},
      {"h100-70b-b96", kTrtThroughput, "static batch 96, TP 2, input 2048, output 128, FP8", "h100-sxm", "llama-2-70b",
       fp8, fp8, 2, batch, 96, 2048, 128, 306, false},
      {"h100-70b-b64", kTrtThroughput, "static batch 64, TP 2, input 2048, output 2048, FP8", "h100-sxm", "llama-2-70b",
       fp8, fp8, 2, batch, 64, 2048, 2048, 547, false, kGqaKernels},
      {"a100-7b-b384", kTrtThroughput, "static batch 384, TP 1, input 128, output 128, FP16", "a100-sxm", "llama-2-7b",
       bf16, bf16, 1, batch, 384, 128, 128, 5586, false},
      {"a100-7b-b60", kTrtThroughput, "static batch 60, TP 1, input 128, output 2048, FP16", "a100-sxm", "llama-2-7b",
       bf16, bf16, 1, batch, 60, 128, 2048, 1928, false},
      {"a100-7b-b52", kTrtThroughput, "static batch 52, TP 1, input 2048, output 128, FP16", "a100-sxm", "llama-2-7b",
       bf16, bf16, 1, batch, 52, 2048, 128, 591, false},
  };
  return figures;
}

const char* metric_unit(Metric metric) {
  switch (metric) {
    case Metric::decode_tokens_per_s: return "tokens/s";
    case Metric::ttft_ms: return "ms";
    case Metric::prefill_tokens_per_s: return "tokens/s";
    case Metric::batch_tokens_per_s_per_gpu: return "tokens/s/GPU";
  }
  return "";
}

Deployment deployment_of(const PublishedFigure& figure, const Efficiencies& efficiencies) {
  Deployment d;
  d.gpu = find_gpu(figure.gpu, "figure.gpu");
  d.model = find_model(figure.model, "figure.model");
  d.weights = figure.weights;
  d.kv = figure.kv;
  d.tp = figure.tp;
  d.bw_efficiency = efficiencies.bandwidth;
  d.compute_efficiency = efficiencies.compute;
  return d;
}

double modeled_figure(const PublishedFigure& f, const Efficiencies& efficiencies) {
  const Deployment d = deployment_of(f, efficiencies);
  switch (f.metric) {
    case Metric::decode_tokens_per_s: {
      double total_ms = 0;
      for (int k = 1; k <= f.output_tokens; ++k) total_ms += decode_step_ms(d, f.batch, f.input_tokens + k);
      return double(f.batch) * f.output_tokens / total_ms * 1e3;
    }
    case Metric::ttft_ms: return prefill_ms(d, f.input_tokens);
    case Metric::prefill_tokens_per_s: return f.input_tokens / prefill_ms(d, f.input_tokens) * 1e3;
    case Metric::batch_tokens_per_s_per_gpu: {
      // The whole batch's prompts in one step (the first output token), then one step per further token.
      double total_ms = step_cost(d, {f.batch, f.input_tokens, f.input_tokens}).ms;
      for (int k = 1; k < f.output_tokens; ++k) total_ms += decode_step_ms(d, f.batch, f.input_tokens + k);
      return double(f.batch) * f.output_tokens / total_ms * 1e3 / f.tp;
    }
  }
  return 0;
}

double relative_error(const PublishedFigure& figure, const Efficiencies& efficiencies) {
  return modeled_figure(figure, efficiencies) / figure.published - 1;
}

Efficiencies fit_efficiencies() {
  Efficiencies best{1, 1};
  double best_loss = INFINITY;
  for (int b = 30; b <= 100; ++b) {
    for (int c = 10; c <= 100; ++c) {
      const Efficiencies candidate{b / 100.0, c / 100.0};
      double loss = 0;
      for (const PublishedFigure& figure : published_figures()) {
        if (!figure.fit) continue;
        const double log_error = std::log(modeled_figure(figure, candidate) / figure.published);
        loss += log_error * log_error;
      }
      if (loss < best_loss) {
        best_loss = loss;
        best = candidate;
      }
    }
  }
  return best;
}

json published_checks_json(const Efficiencies& efficiencies) {
  json figures = json::array(), fitted_on = json::array();
  for (const PublishedFigure& f : published_figures()) {
    const double modeled = modeled_figure(f, efficiencies);
    figures.push_back({{"id", f.id},
                       {"source", f.source.reference},
                       {"source_name", f.source.name},
                       {"source_url", f.source.url},
                       {"conditions", f.conditions},
                       {"gpu", f.gpu},
                       {"model", f.model},
                       {"weights", number_format_name(f.weights)},
                       {"kv", number_format_name(f.kv)},
                       {"tp", f.tp},
                       {"unit", metric_unit(f.metric)},
                       {"published", f.published},
                       {"modeled", modeled},
                       {"error_pct", (modeled / f.published - 1) * 100},
                       {"fit", f.fit}});
    if (f.fit) fitted_on.push_back(f.id);
  }
  return {{"efficiencies",
           {{"bandwidth", efficiencies.bandwidth},
            {"compute", efficiencies.compute},
            {"bandwidth_fitted", efficiencies.bandwidth_fitted},
            {"compute_fitted", efficiencies.compute_fitted},
            {"fitted_on", fitted_on}}},
          {"figures", figures}};
}

std::string format_published_checks(const json& checks) {
  std::vector<std::vector<std::string>> rows = {
      {"figure", "gpu", "model", "tp", "published", "modeled", "error", "unit", ""}};
  for (const json& f : checks["figures"]) {
    rows.push_back({f["id"].get<std::string>(), f["gpu"].get<std::string>(),
                    f["model"].get<std::string>() + " " + f["weights"].get<std::string>(),
                    std::to_string(f["tp"].get<int>()), format("%.4g", f["published"].get<double>()),
                    format("%.4g", f["modeled"].get<double>()), format("%+.0f%%", f["error_pct"].get<double>()),
                    f["unit"].get<std::string>(), f["fit"].get<bool>() ? "(fit)" : ""});
  }
  const json& e = checks["efficiencies"];
  const bool both_fitted = e["bandwidth_fitted"].get<bool>() && e["compute_fitted"].get<bool>();
  auto origin = [&](const char* fitted) {
    return e[fitted].get<bool>() ? " (fitted on the figures marked fit)" : " (given)";
  };
  if (both_fitted)
    return format("bandwidth efficiency %.2f, compute efficiency %.2f (fitted on the figures marked fit)\n",
                  e["bandwidth"].get<double>(), e["compute"].get<double>()) +
           aligned_table(rows);
  return format("bandwidth efficiency %.2f%s, compute efficiency %.2f%s\n", e["bandwidth"].get<double>(),
                origin("bandwidth_fitted"), e["compute"].get<double>(), origin("compute_fitted")) +
         aligned_table(rows);
}

}  // namespace kvlab::roofline
