#include "policy/policy_registry.h"

#include <algorithm>
#include <stdexcept>

#include "common/input_error.h"
#include "policy/chunked_prefill.h"
#include "policy/continuous_batching.h"
#include "policy/kv_batching.h"
#include "policy/serial.h"
#include "policy/static_batching.h"

namespace kvlab::policy {

namespace {

const std::vector<std::string> kKvOptions = {"kv_tokens", "kv_bytes", "block_tokens"};

// The built-in families, in the table's row order. Each entry: family, parameters, admission, label, short
// label, colour, dash, help, caches KV, keeps KV in blocks, takes a KV budget, runs mixed steps, options.
std::vector<PolicyFamily> built_in_families() {
  using P = PolicyParameters;
  using A = Admission;
  std::vector<PolicyFamily> families;
  families.push_back({{"serial-nocache",
                       P::none,
                       A::one_at_a_time,
                       "One at a time, no cache",
                       "no cache",
                       "#b54708",
                       {2, 3},
                       "one request at a time, every step computes the whole prefix again",
                       false,
                       false,
                       false,
                       false,
                       {}},
                      [](const PolicyName&, const KvSettings&) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<SerialNoCache>();
                      }});
  families.push_back({{"serial-cache",
                       P::none,
                       A::one_at_a_time,
                       "One at a time, with cache",
                       "cache",
                       "#1d5fa8",
                       {8, 4},
                       "one request at a time, with a KV cache",
                       true,
                       false,
                       false,
                       false,
                       {}},
                      [](const PolicyName&, const KvSettings&) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<SerialCache>();
                      }});
  families.push_back({{"static",
                       P::batch_rows,
                       A::whole_batches,
                       "Static batches of {B}",
                       "static",
                       "#8a3f8f",
                       {4, 2, 1, 2},
                       "batches of B, each served until its longest answer ends",
                       true,
                       false,
                       false,
                       false,
                       {}},
                      [](const PolicyName& p, const KvSettings&) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<StaticBatching>(p.batch_rows);
                      }});
  families.push_back({{"continuous",
                       P::batch_rows,
                       A::freed_slots,
                       "Continuous batching, {B} slots",
                       "continuous",
                       "#0a7a5a",
                       {},
                       "a freed slot is refilled at once; no memory limit",
                       true,
                       false,
                       false,
                       false,
                       {}},
                      [](const PolicyName& p, const KvSettings&) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<ContinuousBatching>(p.batch_rows);
                      }});
  families.push_back({{"reserve",
                       P::batch_rows,
                       A::freed_slots,
                       "Reserve, {B} slots",
                       "reserve",
                       "#b42318",
                       {6, 3},
                       "reserves prompt + longest answer at admission",
                       true,
                       false,
                       true,
                       false,
                       kKvOptions},
                      [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<ReserveBatching>(p.batch_rows, kv);
                      }});
  families.push_back({{"paged",
                       P::batch_rows,
                       A::freed_slots,
                       "Paged, {B} slots",
                       "paged",
                       "#1d5fa8",
                       {},
                       "blocks on demand, preempts by recompute",
                       true,
                       true,
                       true,
                       false,
                       kKvOptions},
                      [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<PagedBatching>(p.batch_rows, kv);
                      }});
  families.push_back({{"chunked",
                       P::batch_rows_and_step_tokens,
                       A::freed_slots,
                       "Chunked prefill, {B} slots, {T} tokens/step",
                       "chunked",
                       "#8a3f8f",
                       {2, 2},
                       "paged, prompts fused into decode steps",
                       true,
                       true,
                       true,
                       true,
                       kKvOptions},
                      [](const PolicyName& p, const KvSettings& kv) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<ChunkedPrefill>(p.batch_rows, p.step_tokens, kv);
                      }});
  return families;
}

std::string parameters_text(PolicyParameters parameters) {
  return parameters == PolicyParameters::none ? "" : std::string(":") + parameter_names(parameters);
}

// A count as written in the policy name at `where`: digits only, lo to hi; `what` names it in the error ("B").
int parse_count(const std::string& digits, const FieldError& where, const std::string& what, int lo, int hi) {
  std::string allowed = what + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const FieldError field{where.path, where.given, integers_from(lo, hi)};
  bool all_digits =
      !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos;
  if (!all_digits) throw_range(field, where.given + ": " + allowed + " (got \"" + digits + "\")");
  int count = std::stoi(digits);
  if (count < lo || count > hi) throw_range(field, where.given + ": " + allowed + " (got " + digits + ")");
  return count;
}

}  // namespace

const char* parameter_names(PolicyParameters parameters) {
  switch (parameters) {
    case PolicyParameters::none: return "";
    case PolicyParameters::batch_rows: return "B";
    case PolicyParameters::batch_rows_and_step_tokens: return "B,T";
  }
  return "";
}

const char* admission_name(Admission admission) {
  switch (admission) {
    case Admission::one_at_a_time: return "one_at_a_time";
    case Admission::whole_batches: return "whole_batches";
    case Admission::freed_slots: return "freed_slots";
  }
  return "";
}

const PolicyTraits& PolicyName::traits() const { return family->traits; }

PolicyRegistry::PolicyRegistry() {
  for (PolicyFamily& family : built_in_families()) add(std::move(family));
}

void PolicyRegistry::add(PolicyFamily family) {
  for (const PolicyFamily& known : families_)
    if (known.traits.family == family.traits.family)
      throw std::logic_error("policy family \"" + family.traits.family + "\" is registered twice");
  families_.push_back(std::move(family));
}

std::vector<std::string> PolicyRegistry::name_forms() const {
  std::vector<std::string> forms;
  for (const PolicyFamily& family : families_)
    forms.push_back(family.traits.family + parameters_text(family.traits.parameters));
  return forms;
}

std::string PolicyRegistry::name_forms_text() const {
  std::string text;
  for (const std::string& form : name_forms()) text += (text.empty() ? "" : ", ") + form;
  return text;
}

PolicyName PolicyRegistry::parse(const std::string& name, const std::string& path) const {
  const FieldError where{path, "\"" + name + "\"", {}};
  size_t colon = name.find(':');
  std::string family_name = name.substr(0, colon);
  for (size_t i = 0; i < families_.size(); ++i) {
    const PolicyFamily& family = families_[i];
    const PolicyTraits& traits = family.traits;
    if (family_name != traits.family) continue;
    std::string usage = traits.family + parameters_text(traits.parameters);
    if (traits.parameters == PolicyParameters::none) {
      if (colon != std::string::npos) throw_range(where, where.given + ": " + traits.family + " takes no batch size");
      return {&family, i, 0, 0};
    }
    if (colon == std::string::npos)
      throw_range(
          where, where.given + ": needs a batch size, " + usage + " with B from 1 to " + std::to_string(kMaxBatchRows));
    std::string parameters = name.substr(colon + 1);
    if (traits.parameters == PolicyParameters::batch_rows)
      return {&family, i, parse_count(parameters, where, "B", 1, kMaxBatchRows), 0};
    size_t comma = parameters.find(',');
    if (comma == std::string::npos)
      throw_range(where, where.given + ": needs a batch size and a step token budget, " + usage + " with T at least B");
    int batch_rows = parse_count(parameters.substr(0, comma), where, "B", 1, kMaxBatchRows);
    // T >= B: every decode row of a full batch fits one step.
    int step_tokens = parse_count(parameters.substr(comma + 1), where, "T", batch_rows, kMaxStepTokens);
    return {&family, i, batch_rows, step_tokens};
  }
  throw_range({path, where.given, one_of(name_forms())},
              where.given + " is not a known policy (known: " + name_forms_text() + ")");
}

const PolicyRegistry& policy_registry() {
  static const PolicyRegistry registry;
  return registry;
}

PolicyName parse_policy_name(const std::string& name, const std::string& path) {
  return policy_registry().parse(name, path);
}

std::unique_ptr<Scheduler> make_scheduler(const PolicyName& policy, const KvSettings& kv) {
  return policy.family->make(policy, kv);
}

const std::deque<PolicyFamily>& families() { return policy_registry().families(); }

std::vector<std::string> policy_name_forms() { return policy_registry().name_forms(); }

std::vector<std::string> default_policies(int batch_rows) {
  const std::string b = std::to_string(batch_rows);
  return {"serial-nocache", "serial-cache", "static:" + b, "continuous:" + b};
}

std::vector<std::string> read_policy_names(const nlohmann::json& list, const std::string& path) {
  if (!list.is_array() || list.empty() || list.size() > kMaxPolicies)
    throw_type({path, "", integers_from(1, kMaxPolicies)},
               "must be a list of 1 to " + std::to_string(kMaxPolicies) + " policy names");
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (!list[i].is_string())
      throw_type({item, echo_value(list[i]), one_of(policy_name_forms())}, "must be a policy name string");
    names.push_back(list[i].get<std::string>());
  }
  return names;
}

std::string PolicyName::canonical() const {
  std::string name = traits().family;
  if (traits().parameters == PolicyParameters::none) return name;
  name += ":" + std::to_string(batch_rows);
  if (traits().parameters == PolicyParameters::batch_rows_and_step_tokens) name += "," + std::to_string(step_tokens);
  return name;
}

}  // namespace kvlab::policy
