#include "model/number_format.h"

#include "common/input_error.h"

namespace kvlab {

namespace {

std::string listed(const std::vector<std::string>& names, ListWording wording) {
  std::string text = wording == ListWording::one_of ? "one of " : "";
  for (size_t i = 0; i < names.size(); ++i) {
    const bool last = i + 1 == names.size();
    if (i > 0) text += wording == ListWording::or_before_last && last ? " or " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace

const char* number_format_name(NumberFormat format) {
  switch (format) {
    case NumberFormat::f32: return "f32";
    case NumberFormat::bf16: return "bf16";
    case NumberFormat::f16: return "f16";
    case NumberFormat::fp8: return "fp8";
    case NumberFormat::int4: return "int4";
  }
  return "?";
}

int bits_per_number(NumberFormat format) {
  switch (format) {
    case NumberFormat::f32: return 32;
    case NumberFormat::bf16:
    case NumberFormat::f16: return 16;
    case NumberFormat::fp8: return 8;
    case NumberFormat::int4: return 4;
  }
  return 32;
}

std::vector<std::string> number_format_names(const std::vector<NumberFormat>& formats) {
  std::vector<std::string> names;
  for (NumberFormat format : formats) names.push_back(number_format_name(format));
  return names;
}

NumberFormat parse_number_format(const std::string& name, const std::vector<NumberFormat>& allowed,
                                 const std::string& field, ListWording wording) {
  for (NumberFormat format : allowed)
    if (name == number_format_name(format)) return format;
  const std::vector<std::string> names = number_format_names(allowed);
  throw_range({field, "\"" + name + "\"", one_of(names)},
              "must be " + listed(names, wording) + " (got \"" + name + "\")");
}

}  // namespace kvlab
