#pragma once
// The real models the build provides (extracted from a pinned npm package by scripts/extract-models
// into build/models/<directory>), by name.
#include <string>
#include <vector>

namespace kvlab {

struct ShippedModel {
  std::string name;  // what --model takes
  std::string description;
  std::string directory;   // under build/models
  std::string checkpoint;  // llama2.c checkpoint, in the directory
  std::string tokenizer;   // llama2.c tokenizer file, in the directory
};

const std::vector<ShippedModel>& shipped_models();
// Throws InputError naming `field` and the known names when `name` is not one.
const ShippedModel& find_shipped_model(const std::string& name, const std::string& field);

}  // namespace kvlab
