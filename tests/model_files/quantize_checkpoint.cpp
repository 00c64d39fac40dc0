// kvlab_quantize_checkpoint: a llama2.c checkpoint and tokenizer written as a GGUF file of one ggml type,
// or of llama.cpp's Q4_K_M mix, by the tests' own writer and quantizer, for tests and scripts that want a
// quantized model without a download:
//   kvlab_quantize_checkpoint model.bin tokenizer.bin Q4_K out.gguf
// The type is any the GGUF reader takes (supported_ggml_type_names(): F32, F16, BF16 and the block
// formats) or Q4_K_M (llama.cpp's mix); norms stay F32, and a K-quant matrix whose rows are not whole
// 256-weight blocks falls back (GgufOptions). One line on stdout says what the file holds: how many
// tensors of each type, and its size.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "common/input_error.h"
#include "model_file_writers.h"
#include "model_files/model_file.h"

namespace {

bool read_all(const std::string& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return static_cast<bool>(in) || in.eof();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvlab;
  test::GgufOptions options;
  if (argc != 5 || !test::set_matrix_types(argv[3], options)) {
    std::fprintf(stderr, "usage: kvlab_quantize_checkpoint MODEL.bin TOKENIZER.bin TYPE OUT.gguf (TYPE: %s)\n",
                 test::matrix_type_names().c_str());
    return 2;
  }
  std::string checkpoint, tokenizer;
  for (auto [path, bytes] : {std::pair<const char*, std::string*>{argv[1], &checkpoint}, {argv[2], &tokenizer}}) {
    if (!read_all(path, *bytes) || bytes->empty()) {
      std::fprintf(stderr, "kvlab_quantize_checkpoint: cannot read %s\n", path);
      return 2;
    }
  }
  try {
    const ModelFile file = read_llama2c_files(reinterpret_cast<const uint8_t*>(checkpoint.data()), checkpoint.size(),
                                              reinterpret_cast<const uint8_t*>(tokenizer.data()), tokenizer.size());
    const std::string gguf = test::gguf_bytes(test::file_weights(file.tensors), file.vocabulary, options);
    std::printf("%s (%s): %s\n", argv[4], argv[3], test::write_gguf_file(gguf, argv[4]).c_str());
  } catch (const InputError& e) {
    std::fprintf(stderr, "kvlab_quantize_checkpoint: %s\n", e.what());
    return 2;
  }
  return 0;
}
