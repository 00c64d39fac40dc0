#include "cli/policy_help.h"

#include <algorithm>
#include <vector>

#include "policy/policy_registry.h"

namespace kvlab::cli {

namespace {

// "a", "a and b", "a, b and c".
std::string sentence_list(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

template <typename Trait>
std::string families_with(Trait trait) {
  std::vector<std::string> names;
  for (const policy::PolicyFamily& family : policy::families())
    if (trait(family.traits)) names.push_back(family.traits.family);
  return sentence_list(names);
}

}  // namespace

std::string kv_budget_families_text() {
  return families_with([](const policy::PolicyTraits& traits) { return traits.takes_kv_budget; });
}

std::string uncached_families_text() {
  return families_with([](const policy::PolicyTraits& traits) { return !traits.caches_kv; });
}

std::string policy_help_footer() {
  const std::vector<std::string> forms = policy::policy_name_forms();
  size_t width = 0;
  for (const std::string& form : forms) width = std::max(width, form.size());
  std::string text = "Policies:";
  for (size_t i = 0; i < forms.size(); ++i)
    text += "\n  " + forms[i] + std::string(width + 2 - forms[i].size(), ' ') + policy::families()[i].traits.help;
  return text;
}

}  // namespace kvlab::cli
