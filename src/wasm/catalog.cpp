#include "wasm/catalog.h"

#include "experiments/lab.h"
#include "experiments/replay_options.h"
#include "measure/measure_options.h"
#include "measure/step_timer.h"
#include "model/config.h"
#include "model/number_format.h"
#include "model/thread_pool.h"
#include "model_files/gguf_file.h"
#include "model_files/model_file.h"
#include "model_files/tokenizer.h"
#include "policy/policy_registry.h"
#include "roofline/roofline_options.h"
#include "roofline/table.h"
#include "sim/simulate.h"
#include "sim/workload.h"

namespace kvlab::wasm {

using nlohmann::json;

namespace {

// The page's own bound on one run of the lab: requests x longest answer. The simulator allows far more
// (sim::kMaxTotalAnswerTokens), but the page simulates every policy in a browser tab, and at this bound
// one run stays within about a minute on a laptop.
constexpr long long kPageMaxAnswerWork = 10'000'000;

json range(double lo, double hi) { return json{{"min", lo}, {"max", hi}}; }

json model_presets_json() {
  json list = json::array();
  for (const ModelPreset& preset : model_presets())
    list.push_back({{"name", preset.name},
                    {"label", preset.label},
                    {"description", preset.description},
                    {"max_seq", preset.config.max_seq},
                    {"n_layers", preset.config.n_layers},
                    {"n_kv_heads", preset.config.n_kv_heads},
                    {"head_dim", preset.config.head_dim()}});
  return list;
}

// What run() uses for each field it is not given.
json lab_defaults_json() {
  const MeasureOptions measure;
  const json workload = experiments::default_workload();
  return {{"preset", measure.preset},
          {"weights", number_format_name(measure.model.weights)},
          {"kv", number_format_name(measure.model.kv)},
          {"runs", measure.runs},
          {"prompt_tokens", measure.prompt_tokens},
          {"answer_tokens", measure.answer_tokens},
          {"requests", workload["count"]},
          {"prompt", workload["prompt"]},
          {"answer", workload["answer"]},
          {"arrival", workload["arrival"]["kind"]},
          {"seed", workload["seed"]},
          {"slots", policy::kLabBatchRows}};
}

// Each family's traits, in the table's row order: what the page says and draws for a policy.
json policies_json() {
  const std::vector<std::string> forms = policy::policy_name_forms();
  json list = json::array();
  for (size_t i = 0; i < forms.size(); ++i) {
    const policy::PolicyTraits& traits = policy::families()[i].traits;
    list.push_back({{"family", traits.family},
                    {"form", forms[i]},
                    {"parameters", policy::parameter_names(traits.parameters)},
                    {"admission", policy::admission_name(traits.admission)},
                    {"label", traits.label},
                    {"short_label", traits.short_label},
                    {"colour", traits.colour},
                    {"dash", traits.dash},
                    {"help", traits.help},
                    {"caches_kv", traits.caches_kv},
                    {"keeps_kv_in_blocks", traits.keeps_kv_in_blocks},
                    {"takes_kv_budget", traits.takes_kv_budget},
                    {"runs_mixed_steps", traits.runs_mixed_steps},
                    {"options", traits.options}});
  }
  return list;
}

json weight_formats_json() {
  json list = json::array();
  for (NumberFormat format : model_weight_formats())
    list.push_back({{"name", number_format_name(format)}, {"bytes_per_weight", bits_per_number(format) / 8}});
  return list;
}

json kv_formats_json() {
  json list = json::array();
  for (NumberFormat format : model_kv_formats())
    list.push_back({{"name", number_format_name(format)}, {"bytes_per_number", bits_per_number(format) / 8}});
  return list;
}

json limits_json() {
  return {{"runs", range(1, kMaxRuns)},
          {"threads", range(1, max_threads())},
          {"tokens", range(1, static_cast<double>(sim::kMaxTokens))},
          // Every lab run simulates each of the default policies on the whole queue.
          {"requests", range(1, static_cast<double>(sim::kMaxRequestResults / policy::default_policies().size()))},
          {"batch_rows", range(1, policy::kMaxBatchRows)},
          // A modeled GPU's step table has rows up to this batch (the hardware switch's slots).
          {"modeled_batch_rows", range(1, roofline::table_decode_rows().back())},
          {"step_tokens", range(1, policy::kMaxStepTokens)},
          {"rate_per_s", range(sim::kMinRatePerS, sim::kMaxRatePerS)},
          {"seed", range(0, static_cast<double>(sim::kMaxSeed))},
          {"kv_tokens", range(1, static_cast<double>(sim::kMaxKvTokens))},
          {"block_tokens", range(1, sim::kMaxBlockTokens)},
          {"page_answer_work", {{"max", kPageMaxAnswerWork}}},
          // A call's bounds as a whole: its policies, requests x policies, answer tokens, memory and timed grid.
          {"policies", range(1, static_cast<double>(policy::kMaxPolicies))},
          {"request_results", {{"max", sim::kMaxRequestResults}}},
          {"total_answer_tokens", {{"max", sim::kMaxTotalAnswerTokens}}},
          {"call_bytes", {{"max", kMaxCallBytes}}},
          {"model_file_bytes", {{"max", kMaxModelFileBytes}}},
          // What a model file may count (gguf_file.h, tokenizer.h), and the longest text encoded.
          {"vocab", range(2, kMaxVocab)},
          {"merges", {{"max", kMaxMerges}}},
          {"vocab_bytes", {{"max", kMaxVocabularyBytes}}},
          {"merges_bytes", {{"max", kMaxMergesBytes}}},
          {"gguf_metadata_keys", {{"max", kMaxGgufMetadataKeys}}},
          {"gguf_key_bytes", {{"max", kMaxGgufKeyBytes}}},
          {"gguf_tensors", {{"max", kMaxGgufTensors}}},
          {"gguf_tensor_name_bytes", {{"max", kMaxGgufTensorNameBytes}}},
          {"text_bytes", {{"max", kMaxTextBytes}}},
          {"grid_sample_ms", {{"max", kMaxGridSampleMs}}},
          // A timed figure whose samples spread wider than this is noisy: the page marks it and reads no
          // finding off it, as the command line does.
          {"timing", {{"noisy_spread", kNoisySpread}}}};
}

}  // namespace

json page_catalog() {
  return {{"model_presets", model_presets_json()},
          {"weight_formats", weight_formats_json()},
          {"kv_formats", kv_formats_json()},
          {"lab", {{"defaults", lab_defaults_json()}, {"policies", policy::default_policies()}}},
          {"replay",
           {{"policies", experiments::default_replay_policies()},
            {"slots", experiments::kReplaySlots},
            {"block_tokens", experiments::ReplayOptions{}.block_tokens},
            {"workload", experiments::default_replay_workload()}}},
          {"policy_forms", policy::policy_name_forms()},
          {"policies", policies_json()},
          // The real models of the GPU model (src/roofline): the KV calculator's shapes.
          {"real_models", roofline::roofline_presets_json()["models"]},
          {"limits", limits_json()}};
}

}  // namespace kvlab::wasm
