#include "model/kv_format.h"

#include "common/input_error.h"

namespace kvlab {

const char* kv_format_name(KvFormat format) {
  switch (format) {
    case KvFormat::bf16: return "bf16";
    case KvFormat::f16: return "f16";
    case KvFormat::f32: break;
  }
  return "f32";
}

const std::vector<std::string>& kv_format_names() {
  static const std::vector<std::string> names = {"f32", "bf16", "f16"};
  return names;
}

KvFormat parse_kv_format(const std::string& name, const std::string& field) {
  for (KvFormat format : {KvFormat::f32, KvFormat::bf16, KvFormat::f16})
    if (name == kv_format_name(format)) return format;
  throw_range({field, "\"" + name + "\"", one_of(kv_format_names())}, "must be one of f32, bf16, f16 (got \"" + name + "\")");
}

int bytes_per_kv_number(KvFormat format) { return format == KvFormat::f32 ? 4 : 2; }

}  // namespace kvlab
