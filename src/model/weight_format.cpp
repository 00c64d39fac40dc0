#include "model/weight_format.h"

#include "common/input_error.h"

namespace kvlab {

const char* weight_format_name(WeightFormat format) { return format == WeightFormat::bf16 ? "bf16" : "f32"; }

const std::vector<std::string>& weight_format_names() {
  static const std::vector<std::string> names = {"f32", "bf16"};
  return names;
}

WeightFormat parse_weight_format(const std::string& name, const std::string& field) {
  if (name == "f32") return WeightFormat::f32;
  if (name == "bf16") return WeightFormat::bf16;
  throw_range({field, "\"" + name + "\"", one_of(weight_format_names())}, "must be one of f32, bf16 (got \"" + name + "\")");
}

int bytes_per_weight(WeightFormat format) { return format == WeightFormat::bf16 ? 2 : 4; }

}  // namespace kvlab
