// Writes the seed inputs of the model-file fuzz targets into a folder: small models the tests' own
// writers make (tests/model_files/model_file_writers.h), well under scripts/fuzz's 4,096-byte small runs.
//   model_seeds FOLDER checkpoint|gguf
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "model_file_writers.h"

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
    } else {
      std::fprintf(stderr, "model_seeds: unknown target %s\n", target.c_str());
      return 2;
    }
  }
  return 0;
}
