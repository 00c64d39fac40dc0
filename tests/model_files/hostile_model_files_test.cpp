// Model files as hostile as the web (issue 55): each a small file with one thing wrong, built here,
// and each refused with an InputError naming the field or tensor, before the reader allocates for what
// the file claims: counts past the limits, tensors that overlap, a name of a megabyte, a head count that
// does not divide the width, NaN or infinite weights and scales, a text too long to encode.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "common/input_error.h"
#include "expect_refused.h"
#include "model_file_writers.h"
#include "model_files/ggml_tensor_types.h"
#include "model_files/gguf_file.h"
#include "model_files/gguf_llama.h"
#include "model_files/llama2c_tokenizer_file.h"

namespace kvlab {
namespace {

constexpr uint32_t kUint32 = 4, kString = 8, kArray = 9;

// A GGUF file of metadata written field by field, and no tensors unless given.
struct RawGguf {
  test::ByteWriter kvs;
  uint64_t n_kv = 0;

  void key(const std::string& name, uint32_t type) {
    kvs.u64(name.size());
    kvs.text(name);
    kvs.u32(type);
    ++n_kv;
  }
  void text(const std::string& name, const std::string& value) {
    key(name, kString);
    kvs.u64(value.size());
    kvs.text(value);
  }
  void u32(const std::string& name, uint32_t value) {
    key(name, kUint32);
    kvs.u32(value);
  }
  // An array of `count` copies of the string `each`.
  void strings(const std::string& name, uint64_t count, const std::string& each = "") {
    key(name, kArray);
    kvs.u32(kString);
    kvs.u64(count);
    for (uint64_t i = 0; i < count; ++i) {
      kvs.u64(each.size());
      kvs.text(each);
    }
  }
  std::string bytes(uint64_t tensor_count = 0, const std::string& tensor_infos = "") const {
    test::ByteWriter out;
    out.text("GGUF");
    out.u32(3);
    out.u64(tensor_count);
    out.u64(n_kv);
    out.text(kvs.bytes);
    out.text(tensor_infos);
    return out.bytes;
  }
};

void read(const std::string& bytes) { test::read_gguf_copy(bytes); }

void put_u16(std::string& bytes, size_t at, uint16_t value) {
  bytes[at] = static_cast<char>(value & 0xFF);
  bytes[at + 1] = static_cast<char>(value >> 8);
}
void put_u64(std::string& bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(value >> (8 * i));
}

struct HostileModelFiles : ::testing::Test {
  Vocabulary v = test::tiny_vocabulary();
  test::FileWeights w = test::tiny_weights(test::tiny_config(), 5);

  // Where a tensor's info continues after its name: n_dims, dims, type, offset.
  static size_t after_name(const std::string& gguf, const std::string& name) { return gguf.find(name) + name.size(); }
  // Where the tensor `name` starts in the file.
  static size_t tensor_start(const std::string& gguf, const std::string& name) {
    const GgufFile file(reinterpret_cast<const uint8_t*>(gguf.data()), gguf.size());
    for (const GgufTensorInfo& info : file.tensors())
      if (info.name == name)
        return static_cast<size_t>(file.tensor_bytes(info, 0) - reinterpret_cast<const uint8_t*>(gguf.data()));
    ADD_FAILURE() << "no tensor " << name;
    return 0;
  }
};

TEST_F(HostileModelFiles, VocabularyPastItsLimitIsRefusedByItsCountBeforeItIsRead) {
  RawGguf file;
  file.text("general.architecture", "llama");
  file.text("tokenizer.ggml.model", "llama");
  file.strings("tokenizer.ggml.tokens", kMaxVocab + 1);
  test::expect_refused([&] { read(file.bytes()); }, "gguf.tokenizer.ggml.tokens",
                       "at most 262144 elements (got 262145)");
}

TEST_F(HostileModelFiles, MergesPastTheirLimitAreRefusedByTheirCount) {
  RawGguf file;
  file.text("general.architecture", "llama");
  file.text("tokenizer.ggml.model", "gpt2");
  file.strings("tokenizer.ggml.tokens", 2, "a");
  file.text("tokenizer.ggml.pre", "gpt-2");
  file.strings("tokenizer.ggml.merges", kMaxMerges + 1);
  test::expect_refused([&] { read(file.bytes()); }, "gguf.tokenizer.ggml.merges", "at most 524288 elements");
}

TEST_F(HostileModelFiles, VocabularyAndMergesPastTheirBytesOfTextAreRefusedBeforeTheyAreCopied) {
  RawGguf tokens;
  tokens.text("general.architecture", "llama");
  tokens.text("tokenizer.ggml.model", "llama");
  tokens.strings("tokenizer.ggml.tokens", 17, std::string(1 << 20, 't'));  // 17 MiB of text
  test::expect_refused([&] { read(tokens.bytes()); }, "gguf.tokenizer.ggml.tokens",
                       "at most 16777216 bytes of text (got 17825792)");
  RawGguf merges;
  merges.text("general.architecture", "llama");
  merges.text("tokenizer.ggml.model", "gpt2");
  merges.strings("tokenizer.ggml.tokens", 2, "a");
  merges.text("tokenizer.ggml.pre", "gpt-2");
  merges.strings("tokenizer.ggml.merges", 17, std::string(1 << 20, 'm'));
  test::expect_refused([&] { read(merges.bytes()); }, "gguf.tokenizer.ggml.merges", "at most 16777216 bytes of text");
  // A llama2.c tokenizer file: max_token_length, then a score, a length and the bytes of each token.
  test::ByteWriter llama2c;
  llama2c.i32(1 << 16);
  for (int i = 0; i < 300; ++i) {
    llama2c.f32(0.0f);
    llama2c.i32(1 << 16);
    llama2c.text(std::string(1 << 16, 'p'));
  }
  test::expect_refused(
      [&] {
        read_llama2c_tokenizer(reinterpret_cast<const uint8_t*>(llama2c.bytes.data()), llama2c.bytes.size(), 300);
      },
      "tokenizer.tokens[256].length", "past 16777216 bytes");
}

TEST_F(HostileModelFiles, MetadataKeysPastTheirLimitAreRefusedBeforeAnyIsRead) {
  RawGguf file;
  for (uint64_t i = 0; i <= kMaxGgufMetadataKeys; ++i) file.u32("k" + std::to_string(i), 1);
  test::expect_refused([&] { read(file.bytes()); }, "gguf.metadata_kv_count", "(got 4097)");
  RawGguf long_key;
  long_key.u32(std::string(kMaxGgufKeyBytes + 1, 'k'), 1);
  test::expect_refused([&] { read(long_key.bytes()); }, "gguf.metadata[0].key.length", "at most 256 bytes");
}

TEST_F(HostileModelFiles, TensorCountPastItsLimitOrPastTheFileIsRefused) {
  RawGguf file;
  test::expect_refused([&] { read(file.bytes(kMaxGgufTensors + 1)); }, "gguf.tensor_count", "from 0 to 4096");
  test::expect_refused([&] { read(file.bytes(kMaxGgufTensors)); }, "gguf.tensor_count",
                       "runs past the end of the file");
}

TEST_F(HostileModelFiles, AMegabyteTensorNameIsRefusedByItsLengthInAShortMessage) {
  RawGguf file;
  test::ByteWriter info;
  const std::string name(1 << 20, 'n');
  info.u64(name.size());
  info.text(name);
  try {
    read(file.bytes(1, info.bytes));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "gguf.tensors[0].name.length");
    EXPECT_NE(std::string(e.what()).find("at most 63 bytes"), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 300u);
  }
}

TEST_F(HostileModelFiles, EveryInputErrorBoundsWhatItEchoes) {
  const std::string huge(1 << 20, 'x');
  const InputError error(ErrorKind::range, {"gguf.tensors[" + huge + "]", huge, {}}, "holds " + huge);
  EXPECT_LE(error.field().path.size(), kMaxEchoedChars + 40);
  EXPECT_LE(error.field().given.size(), kMaxEchoedChars + 40);
  EXPECT_LE(std::string(error.what()).size(), kMaxEchoedChars + kMaxProblemChars + 100);
  EXPECT_NE(error.field().path.find("(1,048,590 characters)"), std::string::npos) << error.field().path;
}

TEST_F(HostileModelFiles, OverlappingMisalignedOrReorderedTensorsAreRefusedAsLlamaCppRefusesThem) {
  const std::string good = test::gguf_bytes(w, v);
  const auto offset_at = [&](const std::string& name) { return after_name(good, name) + 4 + 16 + 4; };
  std::string overlapping = good;  // attn_k onto attn_q's bytes
  for (int i = 0; i < 8; ++i)
    overlapping[offset_at("blk.0.attn_k.weight") + i] = good[offset_at("blk.0.attn_q.weight") + i];
  test::expect_refused([&] { read(overlapping); }, "gguf.tensors[blk.0.attn_k.weight].offset",
                       "where the tensor before it ends padded to general.alignment 32");
  std::string misaligned = good;
  put_u64(misaligned, offset_at("blk.0.attn_k.weight"), 4);
  test::expect_refused([&] { read(misaligned); }, "gguf.tensors[blk.0.attn_k.weight].offset", "(got 4)");
  std::string past_end = good;
  past_end.resize(past_end.size() - 64);
  test::expect_refused([&] { read(past_end); }, "gguf.tensors[output_norm.weight].offset", "past the end of the file");
}

TEST_F(HostileModelFiles, HeadCountThatDoesNotDivideTheWidthIsReportedByTheFilesKey) {
  for (const std::string& architecture : {std::string("llama"), std::string("qwen2")}) {
    test::GgufOptions options = architecture == "qwen2" ? test::qwen2_options() : test::GgufOptions{};
    const test::FileWeights weights = architecture == "qwen2" ? test::with_qkv_biases(w, 6) : w;
    std::string gguf = test::gguf_bytes(weights, v, options);
    const std::string key = architecture + ".attention.head_count";
    const size_t value_at = gguf.find(key + std::string(1, '\x04')) + key.size() + 4;  // after the uint32 type
    gguf[value_at] = 3;                                                                // 32 is not a multiple of 3
    test::expect_refused([&] { read(gguf); }, "gguf." + key, "must divide " + architecture + ".embedding_length");
    gguf[value_at] = 4;
    const std::string kv_key = key + "_kv";
    gguf[gguf.find(kv_key) + kv_key.size() + 4] = 3;  // 4 is not a multiple of 3
    test::expect_refused([&] { read(gguf); }, "gguf." + kv_key, "must divide " + key);
  }
}

TEST_F(HostileModelFiles, NanOrInfiniteFloatWeightsAreRefusedNamingTheTensor) {
  for (uint32_t type : {0u, 1u, 30u}) {  // F32, F16, BF16
    for (float poison : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
      test::FileWeights poisoned = w;
      poisoned.wv[1][7] = poison;
      test::GgufOptions options;
      options.matrix_type = type;
      test::expect_refused([&] { read(test::gguf_bytes(poisoned, v, options)); }, "gguf.tensors[blk.1.attn_v.weight]",
                           "holds a NaN or an infinity, as element 7");
    }
  }
  test::FileWeights poisoned_norm = w;
  poisoned_norm.final_norm[0] = std::numeric_limits<float>::infinity();
  test::expect_refused([&] { read(test::gguf_bytes(poisoned_norm, v)); }, "gguf.tensors[output_norm.weight]",
                       "as element 0 (F32)");
}

TEST_F(HostileModelFiles, NanOrInfiniteCheckpointWeightsAreRefusedNamingTheTensor) {
  test::FileWeights poisoned = w;
  poisoned.w3[0][9] = std::numeric_limits<float>::quiet_NaN();
  const std::string checkpoint = test::llama2c_checkpoint_bytes(poisoned), tokenizer = test::llama2c_tokenizer_bytes(v);
  test::expect_refused(
      [&] {
        read_llama2c_files(reinterpret_cast<const uint8_t*>(checkpoint.data()), checkpoint.size(),
                           reinterpret_cast<const uint8_t*>(tokenizer.data()), tokenizer.size());
      },
      "checkpoint.w3[0]", "holds a NaN or an infinity, as element 9");
}

TEST_F(HostileModelFiles, NanOrInfiniteBlockScalesAreRefusedNamingTheTensor) {
  // Each block format's float16 scales (model/block_format.h): d first, then dmin or m where it has one.
  const std::map<uint32_t, std::vector<size_t>> scale_offsets = {{8, {0}}, {2, {0}}, {6, {0}}, {7, {0, 2}}};
  for (const auto& [type, offsets] : scale_offsets) {
    for (size_t offset : offsets) {
      for (uint16_t poison : {uint16_t{0x7C00}, uint16_t{0xFE00}}) {  // +infinity, a NaN
        test::GgufOptions options;
        options.matrix_type = type;
        std::string gguf = test::gguf_bytes(w, v, options);
        const size_t block_bytes = static_cast<size_t>(supported_ggml_type(type)->block_bytes);
        put_u16(gguf, tensor_start(gguf, "blk.0.ffn_up.weight") + 2 * block_bytes + offset, poison);
        test::expect_refused(
            [&] { read(gguf); }, "gguf.tensors[blk.0.ffn_up.weight]",
            "holds a NaN or an infinity, as a scale of block 2 (" + std::string(supported_ggml_type(type)->name) + ")");
      }
    }
  }
}

TEST(FirstNonFinite, FindsEachKQuantsScalesAndNothingElse) {
  // 256-weight blocks, too wide for the tiny model's rows: their scales tried on blocks built here.
  const std::map<uint32_t, std::vector<size_t>> scale_offsets = {{12, {0, 2}}, {13, {0, 2}}, {14, {208}}};
  for (const auto& [id, offsets] : scale_offsets) {
    const GgmlType& type = *supported_ggml_type(id);
    std::string blocks(3 * static_cast<size_t>(type.block_bytes), '\x7F');  // finite scales, every quant set
    for (size_t b = 0; b < 3; ++b)
      for (size_t offset : offsets) put_u16(blocks, b * type.block_bytes + offset, 0x3C00);  // 1.0
    const auto* bytes = reinterpret_cast<const uint8_t*>(blocks.data());
    EXPECT_EQ(first_non_finite(type, bytes, 3 * 256), -1) << type.name;
    for (size_t offset : offsets) {
      std::string poisoned = blocks;
      put_u16(poisoned, type.block_bytes + offset, 0x7E00);
      EXPECT_EQ(first_non_finite(type, reinterpret_cast<const uint8_t*>(poisoned.data()), 3 * 256), 1) << type.name;
    }
  }
}

TEST(TextLimit, TextLongerThanTheLimitIsRefusedNamingTheFieldBeforeEncoding) {
  const Tokenizer sentencepiece(test::tiny_vocabulary()), bpe(test::tiny_bpe_vocabulary());
  const std::string at_limit(kMaxTextBytes, 'a');
  EXPECT_GT(sentencepiece.encode(at_limit).size(), 1u);
  EXPECT_GT(bpe.encode(at_limit).size(), 1u);
  for (const Tokenizer* tokenizer : {&sentencepiece, &bpe})
    test::expect_refused([&] { tokenizer->encode(at_limit + "a", "prompt"); }, "prompt",
                         "65537 bytes long, more than the 65536");
}

}  // namespace
}  // namespace kvlab
