#include <gtest/gtest.h>

#include "common/input_error.h"
#include "model/config.h"

namespace kvlab {
namespace {

std::string validation_error(const ModelConfig& c) {
  try {
    validate(c, "options.model");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfig, PresetsAreValid) {
  for (const auto& preset : model_presets()) EXPECT_EQ(validation_error(preset.config), "") << preset.name;
}

TEST(ModelConfig, ErrorsNameTheFieldAndRange) {
  ModelConfig c;
  c.n_layers = 0;
  EXPECT_EQ(validation_error(c), "options.model.n_layers must be an integer from 1 to 64 (got 0)");
  c = ModelConfig{};
  c.n_kv_heads = 4;
  EXPECT_EQ(validation_error(c), "options.model.n_kv_heads must divide n_heads (6 is not a multiple of 4)");
  c = ModelConfig{};
  c.d_model = 250;
  EXPECT_NE(validation_error(c).find("options.model.n_heads must divide d_model"), std::string::npos);
  c = ModelConfig{};
  c.d_model = 4096;
  c.n_heads = 8;
  c.d_ff = 16384;
  c.n_layers = 64;
  EXPECT_NE(validation_error(c).find("too large"), std::string::npos);
}

// The size is checked before the fields' agreement: a model too large was blamed on the default n_heads
// (6) that its d_model 4096 does not divide.
TEST(ModelConfig, TooLargeIsReportedBeforeFieldsThatDisagree) {
  ModelConfig c;
  c.vocab = 65536;
  c.d_model = 4096;
  c.n_layers = 64;
  EXPECT_EQ(validation_error(c),
            "options.model is too large: 16,426 MiB of weights (at most 512 MiB) for n_layers 64 x (2 d_model^2 + 2 "
            "kv_dim d_model + 3 d_model d_ff) + 2 vocab d_model, and norms = 4,305,981,440 parameters, with d_model "
            "4096, kv_dim 1364, d_ff 1152 and vocab 65536");
}

TEST(ModelConfig, KvBytesPerTokenFollowsTheFormula) {
  ModelConfig c;  // the published example: 32 layers, 8 KV heads of 128 -> 2 x 32 x 8 x 128 x 4 bytes
  c.n_layers = 32;
  c.d_model = 4096;
  c.n_heads = 32;
  c.n_kv_heads = 8;
  EXPECT_EQ(model_size(c).kv_bytes_per_token, 2 * 32 * 8 * 128 * 4);
}

TEST(ModelConfig, Bf16HalvesTheMatrixBytesOnly) {
  ModelConfig c;  // small: 44.5 MB in f32, of which the embedding and the norms stay float32
  const ModelSize f32 = model_size(c);
  c.weights = NumberFormat::bf16;
  const ModelSize bf16 = model_size(c);
  const int64_t floats = int64_t{c.n_layers} * 2 * c.d_model + int64_t{c.vocab} * c.d_model + c.d_model;
  EXPECT_EQ(bf16.parameters, f32.parameters);
  EXPECT_EQ(bf16.weight_bytes, (f32.parameters - floats) * 2 + floats * 4);
  EXPECT_EQ(bf16.kv_bytes_per_token, f32.kv_bytes_per_token);
}

TEST(ModelConfig, SixteenBitKvHalvesTheBytesPerTokenOnly) {
  ModelConfig c;  // the published example: 2 x 32 x 8 x 128 x 2 bytes at 16 bits
  c.n_layers = 32;
  c.d_model = 4096;
  c.n_heads = 32;
  c.n_kv_heads = 8;
  const ModelSize f32 = model_size(c);
  for (NumberFormat format : {NumberFormat::bf16, NumberFormat::f16}) {
    c.kv = format;
    EXPECT_EQ(model_size(c).kv_bytes_per_token, 2 * 32 * 8 * 128 * 2);
    EXPECT_EQ(model_size(c).weight_bytes, f32.weight_bytes);
  }
}

TEST(ModelConfig, KvFormatNamesParseAndBadOnesNameTheField) {
  for (NumberFormat format : model_kv_formats())
    EXPECT_EQ(parse_number_format(number_format_name(format), model_kv_formats(), "options.kv"), format);
  try {
    parse_number_format("fp8", model_kv_formats(), "options.kv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "options.kv must be one of f32, bf16, f16 (got \"fp8\")");
    EXPECT_EQ(e.field().path, "options.kv");
  }
}

TEST(ModelConfig, UnknownPresetNamesTheKnownOnes) {
  try {
    find_preset("huge", "options.preset");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "options.preset must be one of small, lab, medium, tiny (got \"huge\")");
  }
}

}  // namespace
}  // namespace kvlab
