// Writes the seed inputs of the model-file fuzz targets into a folder: small models the tests' own
// writers make (tests/model_files/model_file_writers.h), well under scripts/fuzz's 4,096-byte small runs.
//   model_seeds FOLDER checkpoint|gguf
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "model_file_writers.h"
#include "model_files/gguf_file.h"

namespace {

using namespace kvlab;

Vocabulary micro_vocabulary() {
  Vocabulary v;
  v.pieces = {"<unk>", "<s>", "</s>", " ", "a", "b", " a", "ab"};
  v.scores = {0, 0, 0, -1, -2, -3, -4, -5};
  return v;
}

// d_model 32 for Q8_0, whose blocks of 32 weights run along rows.
ModelConfig micro_config(int n_kv_heads, int d_model) {
  ModelConfig c;
  c.vocab = 8;
  c.d_model = d_model;
  c.d_ff = d_model;
  c.n_layers = 1;
  c.n_heads = 2;
  c.n_kv_heads = n_kv_heads;
  c.max_seq = 6;
  return c;
}

void write(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

void put_u64(std::string& bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(value >> (8 * i));
}

// Where a matrix's offset is written in the tensor infos: after its name, n_dims, two dims and the type.
size_t offset_field(const std::string& gguf, const std::string& name) {
  return gguf.find(name) + name.size() + 4 + 16 + 4;
}

// Each a small model with one thing wrong (issue 55, docs/RELIABILITY.md), which the reader must refuse;
// the fuzzer mutates from them as from the good ones.
void write_hostile_gguf(const std::filesystem::path& folder, const Vocabulary& v) {
  const test::FileWeights w = test::tiny_weights(micro_config(1, 32), 3, true);
  const std::string q8_0 = test::gguf_bytes(w, v, {8});

  std::string overlap = q8_0;  // attn_k written over attn_q's bytes
  overlap.replace(offset_field(overlap, "blk.0.attn_k.weight"), 8,
                  q8_0.substr(offset_field(q8_0, "blk.0.attn_q.weight"), 8));
  write(folder / "hostile-overlap.gguf", overlap);

  std::string head_count = q8_0;  // 3 heads do not divide a width of 32
  const std::string key = "llama.attention.head_count";
  head_count[head_count.find(key + '\x04') + key.size() + 4] = 3;
  write(folder / "hostile-head-count.gguf", head_count);

  test::FileWeights nan_weights = test::tiny_weights(micro_config(1, 8), 3, true);
  nan_weights.wq[0][5] = std::nanf("");
  write(folder / "hostile-nan-f32.gguf", test::gguf_bytes(nan_weights, v));

  std::string inf_scale = q8_0;  // +infinity as the float16 scale of attn_q's first block
  const GgufFile file(reinterpret_cast<const uint8_t*>(q8_0.data()), q8_0.size());
  for (const GgufTensorInfo& info : file.tensors())
    if (info.name == "blk.0.attn_q.weight") {
      const size_t at = static_cast<size_t>(file.tensor_bytes(info, 2) - reinterpret_cast<const uint8_t*>(q8_0.data()));
      inf_scale[at] = '\x00';
      inf_scale[at + 1] = '\x7C';
    }
  write(folder / "hostile-inf-scale-q8_0.gguf", inf_scale);

  test::ByteWriter header;  // GGUF v3, one tensor, no metadata
  header.text("GGUF");
  header.u32(3);
  header.u64(1);
  header.u64(0);
  test::ByteWriter long_name = header;  // a tensor name of 1,000 bytes, past ggml's 63
  long_name.u64(1000);
  long_name.text(std::string(1000, 'n'));
  write(folder / "hostile-long-name.gguf", long_name.bytes);

  std::string many_keys = header.bytes;  // more metadata keys than the reader takes
  put_u64(many_keys, 16, kMaxGgufMetadataKeys + 1);
  write(folder / "hostile-many-keys.gguf", many_keys);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: model_seeds FOLDER checkpoint|gguf\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  const std::string target = argv[2];
  std::filesystem::create_directories(folder);
  const Vocabulary v = micro_vocabulary();
  for (bool shared : {true, false}) {
    const test::FileWeights w = test::tiny_weights(micro_config(shared ? 1 : 2, 8), 3, shared);
    const std::string name = shared ? "shared" : "unshared";
    if (target == "checkpoint") {
      const std::string checkpoint = test::llama2c_checkpoint_bytes(w);
      test::ByteWriter length;
      length.u32(static_cast<uint32_t>(checkpoint.size()));
      write(folder / (name + ".bin"), length.bytes + checkpoint + test::llama2c_tokenizer_bytes(v));
    } else if (target == "gguf") {
      write(folder / (name + "-f32.gguf"), test::gguf_bytes(w, v));
      write(folder / (name + "-q8_0.gguf"),
            test::gguf_bytes(test::tiny_weights(micro_config(shared ? 1 : 2, 32), 3, shared), v, {8}));
      write(folder / (name + "-qwen2.gguf"), test::gguf_bytes(test::with_qkv_biases(w, 4), v, test::qwen2_options()));
      if (shared) write_hostile_gguf(folder, v);
    } else {
      std::fprintf(stderr, "model_seeds: unknown target %s\n", target.c_str());
      return 2;
    }
  }
  return 0;
}
