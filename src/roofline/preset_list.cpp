#include "roofline/preset_list.h"

#include "roofline/gpu_presets.h"
#include "roofline/model_presets.h"
#include "roofline/number_formats.h"
#include "roofline/roofline_options.h"

namespace kvlab::roofline {

using nlohmann::json;

json roofline_presets_json() {
  json gpus = json::array();
  for (const GpuSpec& gpu : gpu_presets())
    gpus.push_back({{"name", gpu.name},
                    {"description", gpu.description},
                    {"memory_bytes", gpu.memory_bytes},
                    {"memory_bytes_per_s", gpu.memory_bytes_per_s},
                    {"link", gpu.link}});
  json models = json::array();
  for (const ModelShape& model : model_presets())
    models.push_back({{"name", model.name},
                      {"description", model.description},
                      {"parameters", model.parameters()},
                      {"n_layers", model.n_layers},
                      {"n_kv_heads", model.n_kv_heads},
                      {"head_dim", model.head_dim()}});
  json weights = json::array();
  for (WeightFormat format : kWeightFormats) weights.push_back(format_name(format));
  json kv = json::array();
  for (KvFormat format : kKvFormats) kv.push_back(format_name(format));
  return {{"gpus", gpus}, {"models", models}, {"weights", weights}, {"kv", kv}, {"max_tp", kMaxTensorParallel}};
}

}  // namespace kvlab::roofline
