// One vocabulary of number formats: each name parses back to its format, and a field that accepts a subset
// names that subset in its error.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "model/number_format.h"

namespace kvlab {
namespace {

const std::vector<NumberFormat> kAll = {NumberFormat::f32, NumberFormat::bf16, NumberFormat::f16, NumberFormat::fp8,
                                        NumberFormat::int4};

TEST(NumberFormat, EveryNameParsesBackAndHasItsBits) {
  EXPECT_EQ(number_format_names(kAll), (std::vector<std::string>{"f32", "bf16", "f16", "fp8", "int4"}));
  for (NumberFormat format : kAll) EXPECT_EQ(parse_number_format(number_format_name(format), kAll, "x"), format);
  EXPECT_EQ(bits_per_number(NumberFormat::f32), 32);
  EXPECT_EQ(bits_per_number(NumberFormat::bf16), 16);
  EXPECT_EQ(bits_per_number(NumberFormat::f16), 16);
  EXPECT_EQ(bits_per_number(NumberFormat::fp8), 8);
  EXPECT_EQ(bits_per_number(NumberFormat::int4), 4);
}

std::string error_of(const std::string& name, const std::vector<NumberFormat>& allowed, ListWording wording) {
  try {
    parse_number_format(name, allowed, "options.weights", wording);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "options.weights");
    EXPECT_EQ(e.field().allowed.choices, number_format_names(allowed));
    return e.what();
  }
  return "no error";
}

TEST(NumberFormat, AFormatOutsideTheFieldsSubsetIsAnErrorListingTheSubset) {
  const std::vector<NumberFormat> two = {NumberFormat::f32, NumberFormat::bf16};
  EXPECT_EQ(error_of("fp8", two, ListWording::one_of), "options.weights must be one of f32, bf16 (got \"fp8\")");
  EXPECT_EQ(error_of("fp8", two, ListWording::or_before_last), "options.weights must be f32 or bf16 (got \"fp8\")");
  const std::vector<NumberFormat> three = {NumberFormat::bf16, NumberFormat::fp8, NumberFormat::int4};
  EXPECT_EQ(error_of("f32", three, ListWording::or_before_last),
            "options.weights must be bf16, fp8 or int4 (got \"f32\")");
}

}  // namespace
}  // namespace kvlab
