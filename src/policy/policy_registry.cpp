#include "policy/policy_registry.h"

#include <algorithm>
#include <iterator>

#include "common/input_error.h"
#include "policy/chunked_prefill.h"
#include "policy/continuous_batching.h"
#include "policy/kv_batching.h"
#include "policy/serial.h"
#include "policy/static_batching.h"

namespace kvlab::policy {

namespace {

enum class Parameters { none, batch_rows, batch_rows_and_step_tokens };  // "name", "name:B", "name:B,T"

struct PolicyFamily {
  const char* name;
  Parameters parameters;
  std::unique_ptr<Scheduler> (*make)(const PolicyName& policy, const KvSettings& kv);
};

const PolicyFamily kFamilies[] = {
    {"serial-nocache", Parameters::none,
     [](const PolicyName&, const KvSettings&) -> std::unique_ptr<Scheduler> { return std::make_unique<SerialNoCache>(); }},
    {"serial-cache", Parameters::none,
     [](const PolicyName&, const KvSettings&) -> std::unique_ptr<Scheduler> { return std::make_unique<SerialCache>(); }},
    {"static", Parameters::batch_rows,
     [](const PolicyName& p, const KvSettings&) -> std::unique_ptr<Scheduler> {
       return std::make_unique<StaticBatching>(p.batch_rows);
     }},
    {"continuous", Parameters::batch_rows,
     [](const PolicyName& p, const KvSettings&) -> std::unique_ptr<Scheduler> {
       return std::make_unique<ContinuousBatching>(p.batch_rows);
     }},
    {"reserve", Parameters::batch_rows,
     [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
       return std::make_unique<ReserveBatching>(p.batch_rows, kv);
     }},
    {"paged", Parameters::batch_rows,
     [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
       return std::make_unique<PagedBatching>(p.batch_rows, kv);
     }},
    {"chunked", Parameters::batch_rows_and_step_tokens,
     [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
       return std::make_unique<ChunkedPrefill>(p.batch_rows, p.step_tokens, kv);
     }},
};

const char* parameters_text(Parameters parameters) {
  switch (parameters) {
    case Parameters::none: return "";
    case Parameters::batch_rows: return ":B";
    case Parameters::batch_rows_and_step_tokens: return ":B,T";
  }
  return "";
}

std::string known_names() {
  std::string list;
  for (const std::string& form : policy_name_forms()) list += (list.empty() ? "" : ", ") + form;
  return list;
}

// A count as written in the policy name at `where`: digits only, lo to hi; `what` names it in the error ("B").
int parse_count(const std::string& digits, const FieldError& where, const std::string& what, int lo, int hi) {
  std::string allowed = what + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const FieldError field{where.path, where.given, integers_from(lo, hi)};
  bool all_digits = !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos;
  if (!all_digits) throw_range(field, where.given + ": " + allowed + " (got \"" + digits + "\")");
  int count = std::stoi(digits);
  if (count < lo || count > hi) throw_range(field, where.given + ": " + allowed + " (got " + digits + ")");
  return count;
}

}  // namespace

std::vector<std::string> policy_name_forms() {
  std::vector<std::string> forms;
  for (const PolicyFamily& family : kFamilies) forms.push_back(std::string(family.name) + parameters_text(family.parameters));
  return forms;
}

PolicyName parse_policy_name(const std::string& name, const std::string& path) {
  const FieldError where{path, "\"" + name + "\"", {}};
  size_t colon = name.find(':');
  std::string family_name = name.substr(0, colon);
  for (size_t i = 0; i < std::size(kFamilies); ++i) {
    const PolicyFamily& family = kFamilies[i];
    if (family_name != family.name) continue;
    std::string usage = std::string(family.name) + parameters_text(family.parameters);
    if (family.parameters == Parameters::none) {
      if (colon != std::string::npos) throw_range(where, where.given + ": " + family.name + " takes no batch size");
      return {i, 0, 0};
    }
    if (colon == std::string::npos)
      throw_range(where, where.given + ": needs a batch size, " + usage + " with B from 1 to " + std::to_string(kMaxBatchRows));
    std::string parameters = name.substr(colon + 1);
    if (family.parameters == Parameters::batch_rows) return {i, parse_count(parameters, where, "B", 1, kMaxBatchRows), 0};
    size_t comma = parameters.find(',');
    if (comma == std::string::npos)
      throw_range(where, where.given + ": needs a batch size and a step token budget, " + usage + " with T at least B");
    int batch_rows = parse_count(parameters.substr(0, comma), where, "B", 1, kMaxBatchRows);
    // T >= B: every decode row of a full batch fits one step.
    int step_tokens = parse_count(parameters.substr(comma + 1), where, "T", batch_rows, kMaxStepTokens);
    return {i, batch_rows, step_tokens};
  }
  throw_range({path, where.given, one_of(policy_name_forms())}, where.given + " is not a known policy (known: " + known_names() + ")");
}

std::unique_ptr<Scheduler> make_scheduler(const PolicyName& policy, const KvSettings& kv) {
  return kFamilies[policy.family].make(policy, kv);
}

std::vector<std::string> default_policies() { return {"serial-nocache", "serial-cache", "static:16", "continuous:16"}; }

std::vector<std::string> read_policy_names(const nlohmann::json& list, const std::string& path) {
  if (!list.is_array() || list.empty() || list.size() > 64) throw_type({path, "", {}}, "must be a list of 1 to 64 policy names");
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (!list[i].is_string()) throw_type({item, list[i].dump(), one_of(policy_name_forms())}, "must be a policy name string");
    names.push_back(list[i].get<std::string>());
    if (std::find(names.begin(), names.end() - 1, names.back()) != names.end() - 1)
      throw_range({item, "\"" + names.back() + "\"", {}}, "\"" + names.back() + "\" is given twice");
  }
  return names;
}

}  // namespace kvlab::policy
