#include "sim/policy_registry.h"

#include <iterator>

#include "common/input_error.h"
#include "sim/continuous_batching.h"
#include "sim/serial.h"
#include "sim/static_batching.h"

namespace kvlab::sim {

namespace {

struct PolicyFamily {
  const char* name;
  bool takes_batch_rows;  // written "name:B"
  std::unique_ptr<Scheduler> (*make)(int batch_rows);
};

const PolicyFamily kFamilies[] = {
    {"serial-nocache", false, [](int) -> std::unique_ptr<Scheduler> { return std::make_unique<SerialNoCache>(); }},
    {"serial-cache", false, [](int) -> std::unique_ptr<Scheduler> { return std::make_unique<SerialCache>(); }},
    {"static", true, [](int b) -> std::unique_ptr<Scheduler> { return std::make_unique<StaticBatching>(b); }},
    {"continuous", true, [](int b) -> std::unique_ptr<Scheduler> { return std::make_unique<ContinuousBatching>(b); }},
};

std::string known_names() {
  std::string list;
  for (const PolicyFamily& family : kFamilies)
    list += (list.empty() ? "" : ", ") + std::string(family.name) + (family.takes_batch_rows ? ":B" : "");
  return list;
}

// B as written after the colon: digits only, 1 to kMaxBatchRows.
int parse_batch_rows(const std::string& digits, const std::string& where) {
  std::string allowed = "B must be an integer from 1 to " + std::to_string(kMaxBatchRows);
  bool all_digits = !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos;
  if (!all_digits) throw_range(where + ": " + allowed + " (got \"" + digits + "\")");
  int rows = std::stoi(digits);
  if (rows < 1 || rows > kMaxBatchRows) throw_range(where + ": " + allowed + " (got " + digits + ")");
  return rows;
}

}  // namespace

PolicyName parse_policy_name(const std::string& name, const std::string& path) {
  std::string where = path + " \"" + name + "\"";
  size_t colon = name.find(':');
  std::string family_name = name.substr(0, colon);
  for (size_t i = 0; i < std::size(kFamilies); ++i) {
    const PolicyFamily& family = kFamilies[i];
    if (family_name != family.name) continue;
    if (!family.takes_batch_rows) {
      if (colon != std::string::npos) throw_range(where + ": " + family.name + " takes no batch size");
      return {i, 0};
    }
    if (colon == std::string::npos)
      throw_range(where + ": needs a batch size, " + family.name + ":B with B from 1 to " + std::to_string(kMaxBatchRows));
    return {i, parse_batch_rows(name.substr(colon + 1), where)};
  }
  throw_range(where + " is not a known policy (known: " + known_names() + ")");
}

std::unique_ptr<Scheduler> make_scheduler(const PolicyName& policy) {
  return kFamilies[policy.family].make(policy.batch_rows);
}

std::vector<std::string> default_policies() { return {"serial-nocache", "serial-cache", "static:16", "continuous:16"}; }

}  // namespace kvlab::sim
