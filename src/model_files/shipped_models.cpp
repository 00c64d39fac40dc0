#include "model_files/shipped_models.h"

#include "common/find_by_name.h"

namespace kvlab {

const std::vector<ShippedModel>& shipped_models() {
  static const std::vector<ShippedModel> models = {
      {"stories15M",
       "a real model that writes children's stories: karpathy's llama2.c stories15M, trained on TinyStories",
       "stories15M", "model.bin", "tokenizer.bin"},
  };
  return models;
}

const ShippedModel& find_shipped_model(const std::string& name, const std::string& field) {
  return find_by_name(shipped_models(), name, field);
}

}  // namespace kvlab
