// kvlab_quantize_checkpoint: a llama2.c checkpoint and tokenizer written as a GGUF file of one ggml type,
// by the tests' own writer and quantizer, for tests and scripts that want a quantized model without a
// download:
//   kvlab_quantize_checkpoint model.bin tokenizer.bin Q4_K out.gguf
// The type is any the GGUF reader takes (supported_ggml_type_names(): F32, F16, BF16 and the block
// formats); norms stay F32, and a K-quant matrix whose rows are not whole 256-weight blocks falls back
// (GgufOptions). One line on stdout says what the file holds: how many tensors of each type, and its size.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "common/input_error.h"
#include "model_file_writers.h"
#include "model_files/ggml_tensor_types.h"
#include "model_files/gguf_file.h"
#include "model_files/model_file.h"

namespace {

bool read_all(const std::string& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return static_cast<bool>(in) || in.eof();
}

const kvlab::GgmlType* type_named(const std::string& name) {
  for (uint32_t id = 0; id <= 30; ++id) {
    const kvlab::GgmlType* type = kvlab::supported_ggml_type(id);
    if (type && name == type->name) return type;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvlab;
  if (argc != 5) {
    std::fprintf(stderr, "usage: kvlab_quantize_checkpoint MODEL.bin TOKENIZER.bin TYPE OUT.gguf (TYPE: %s)\n",
                 supported_ggml_type_names().c_str());
    return 2;
  }
  const GgmlType* type = type_named(argv[3]);
  if (!type) {
    std::fprintf(stderr, "kvlab_quantize_checkpoint: type %s is not one of %s\n", argv[3],
                 supported_ggml_type_names().c_str());
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
    const std::string gguf = test::gguf_bytes(test::file_weights(file.tensors), file.vocabulary, {type->id});
    std::ofstream out(argv[4], std::ios::binary);
    out.write(gguf.data(), static_cast<std::streamsize>(gguf.size()));
    if (!out.flush()) {
      std::fprintf(stderr, "kvlab_quantize_checkpoint: cannot write %s\n", argv[4]);
      return 2;
    }
    const GgufFile written(reinterpret_cast<const uint8_t*>(gguf.data()), gguf.size());
    std::map<std::string, int> tensors_of_type;
    for (const GgufTensorInfo& info : written.tensors()) ++tensors_of_type[ggml_type_name(info.type)];
    std::string counts;
    for (const auto& [name, count] : tensors_of_type)
      counts += (counts.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    std::printf("%s (%s): %s tensors; %zu bytes\n", argv[4], type->name, counts.c_str(), gguf.size());
  } catch (const InputError& e) {
    std::fprintf(stderr, "kvlab_quantize_checkpoint: %s\n", e.what());
    return 2;
  }
  return 0;
}
