#pragma once
// What the page's forms offer, taken from the code that defines it: the model presets, the lab's
// defaults and policy lists, and the range of every field. The page is built with this catalog
// (web/build.mjs asks the module for it), so a preset, default or limit is written once, in C++.
#include <nlohmann/json.hpp>

namespace kvlab::wasm {

// {
//   "model_presets": [{name, label, description, max_seq, n_layers, n_kv_heads, head_dim}],   the first is the default
//   "weight_formats": [{name, bytes_per_weight}],
//   "kv_formats": [{name, bytes_per_number}],
//   "lab": {"defaults": {preset, weights, kv, runs, prompt_tokens, answer_tokens, requests, prompt: [lo, hi],
//           answer: [lo, hi], arrival, seed, slots}, "policies": [...]},
//   "replay": {"policies": [...], "block_tokens": 16},
//   "real_models": [{name, description, parameters, n_layers, n_kv_heads, head_dim}],
//   "policy_forms": ["serial-nocache", "static:B", ..., "chunked:B,T"],
//   "policies": [{family, form, parameters ("", "B" or "B,T"), admission, label ("Paged, {B} slots"), short_label,
//                 colour, dash, help, caches_kv, keeps_kv_in_blocks, takes_kv_budget, runs_mixed_steps, options}],
//                 policy/policy_registry.h's traits, in the table's row order
//   "limits": {name: {min, max}, ..., "page_answer_work": {max}, "policies": {min, max},
//              "request_results", "total_answer_tokens", "call_bytes", "grid_sample_ms": {max},
//              "timing": {"noisy_spread"}}   (measure/step_timer.h's kNoisySpread)
// }
nlohmann::json page_catalog();

}  // namespace kvlab::wasm
