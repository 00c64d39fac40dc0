// kvlab_synthetic_gguf: a GGUF file of the shape of a model readers download (its sizes, architecture,
// tied classifier and vocabulary size), with the tests' random weights, in one ggml type or llama.cpp's
// Q4_K_M mix: for measuring what loading and running such a file takes (memory, speed) without
// downloading it. The vocabulary is the tests' tiny SentencePiece one padded with filler pieces, so the
// text it writes means nothing; the shape is what counts.
//   kvlab_synthetic_gguf qwen2.5-0.5b Q4_K_M out.gguf
// One line on stdout says what the file holds: how many tensors of each type, and its size.
#include <cstdio>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "model_file_writers.h"

namespace {

using kvlab::ModelConfig;
using kvlab::test::GgufOptions;

// The published sizes (each model's config.json on Hugging Face): d_model, layers, heads, KV heads,
// d_ff, vocabulary; context cut to 1,024 positions, the KV cache kvlab allocates.
struct Shape {
  const char* name;
  ModelConfig config;
  GgufOptions options;
};

ModelConfig sizes(int d_model, int n_layers, int n_heads, int n_kv_heads, int d_ff, int vocab) {
  ModelConfig c;
  c.d_model = d_model;
  c.n_layers = n_layers;
  c.n_heads = n_heads;
  c.n_kv_heads = n_kv_heads;
  c.d_ff = d_ff;
  c.vocab = vocab;
  c.max_seq = 1024;
  return c;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {"qwen2.5-0.5b", sizes(896, 24, 14, 2, 4864, 151936), kvlab::test::qwen2_options()},
      {"smollm2-135m", sizes(576, 30, 9, 3, 1536, 49152), kvlab::test::smollm2_options()},
      {"smollm2-360m", sizes(960, 32, 15, 5, 2560, 49152), kvlab::test::smollm2_options()},
  };
  return all;
}

std::string names_of_shapes() {
  std::string names;
  for (const Shape& s : shapes()) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvlab;
  const Shape* shape = nullptr;
  for (const Shape& s : shapes())
    if (argc == 4 && argv[1] == std::string(s.name)) shape = &s;
  GgufOptions options = shape ? shape->options : GgufOptions{};
  if (!shape || !test::set_matrix_types(argv[2], options)) {
    std::fprintf(stderr, "usage: kvlab_synthetic_gguf SHAPE TYPE OUT.gguf (SHAPE: %s; TYPE: %s)\n",
                 names_of_shapes().c_str(), test::matrix_type_names().c_str());
    return 2;
  }
  Vocabulary v = test::tiny_vocabulary();
  while (static_cast<int>(v.pieces.size()) < shape->config.vocab) {
    v.pieces.push_back("<filler " + std::to_string(v.pieces.size()) + ">");
    v.scores.push_back(-1e6f);
  }
  test::FileWeights w = test::tiny_weights(shape->config, 5);
  if (options.architecture == "qwen2") w = test::with_qkv_biases(std::move(w), 6);
  try {
    const std::string summary = test::write_gguf_file(test::gguf_bytes(w, v, options), argv[3]);
    std::printf("%s (%s %s): %s\n", argv[3], shape->name, argv[2], summary.c_str());
  } catch (const InputError& e) {
    std::fprintf(stderr, "kvlab_synthetic_gguf: %s\n", e.what());
    return 2;
  }
  return 0;
}
