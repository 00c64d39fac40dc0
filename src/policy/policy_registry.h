#pragma once
// Policy names: "serial-nocache", "serial-cache", "static:B", "continuous:B", "reserve:B", "paged:B" (B from
// 1 to 4096) and "chunked:B,T" (T from B to 1,000,000). Everything known about a policy family (its name,
// parameters, label, colour, help, what memory it keeps) is one entry of the registry, next to its
// Scheduler class; the CLI help and the page (through the catalog) read it there, and nothing else matches
// policy names. A new policy is one Scheduler class plus one entry in policy_registry.cpp's table.
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/kv_blocks.h"
#include "policy/scheduler.h"

namespace kvlab::policy {

constexpr int kMaxBatchRows = 4096;
constexpr int kMaxStepTokens = 1'000'000;
constexpr int kLabBatchRows = 16;  // B of the published lab's batching policies
// Policies of one call (a JSON list, the CLI's repeated --policy): each replays the whole queue, so the
// work of a call grows with their number.
constexpr size_t kMaxPolicies = 64;

enum class PolicyParameters { none, batch_rows, batch_rows_and_step_tokens };  // "name", "name:B", "name:B,T"

// "", "B" or "B,T".
const char* parameter_names(PolicyParameters parameters);

// When a request gets a seat: one at a time (the serial policies), a whole batch at once when the last
// batch is done (static), or whenever a seat is free (continuous and its memory variants).
enum class Admission { one_at_a_time, whole_batches, freed_slots };

// "one_at_a_time", "whole_batches" or "freed_slots".
const char* admission_name(Admission admission);

struct PolicyTraits {
  std::string family;  // "paged"
  PolicyParameters parameters = PolicyParameters::none;
  Admission admission = Admission::one_at_a_time;
  std::string label;        // the page's name for it, "{B}" and "{T}" standing for the parameters: "Paged, {B} slots"
  std::string short_label;  // a word or two, under a bar: "paged"
  std::string colour;       // its lines and bars on the page, at least 3:1 against white ("#1d5fa8")
  std::vector<int> dash;    // its lines' dash pattern on the page (empty: solid), which tells apart equal colours
  std::string help;         // one line, for the CLI help and the page: "blocks on demand, preempts by recompute"
  bool caches_kv = true;    // false: every step computes the whole prefix again (the replay serves fewer requests)
  bool keeps_kv_in_blocks = false;  // its KV lives in blocks of one pool (the real engine's paged KV)
  bool takes_kv_budget = false;     // served within a KV memory budget
  // Runs mixed steps (a prompt chunk and decode rows in one pass), priced on the step table's mixed grid:
  // a replay measures that grid only for such a policy.
  bool runs_mixed_steps = false;
  std::vector<std::string> options;  // the simulate options it reads beyond the common ones ("kv_tokens")
};

struct PolicyFamily;

// A parsed policy name: its family (in the registry that parsed it) and parameters.
struct PolicyName {
  const PolicyFamily* family = nullptr;
  size_t order = 0;     // the family's row in its registry, which is also the table's row order
  int batch_rows = 0;   // B for the batching policies, 0 for the others
  int step_tokens = 0;  // T for chunked:B,T, 0 for the others

  const PolicyTraits& traits() const;
  // The name in its one spelling: family[:B[,T]] in plain decimals ("static:4" for "static:04").
  std::string canonical() const;
};

// The scheduler of a policy; the KV-memory policies use `kv`, the others ignore it.
using MakeScheduler = std::function<std::unique_ptr<Scheduler>(const PolicyName& policy, const KvSettings& kv)>;

struct PolicyFamily {
  PolicyTraits traits;
  MakeScheduler make;
};

class PolicyRegistry {
 public:
  // The built-in families, in the table's row order.
  PolicyRegistry();

  // Adds a family after the others; throws std::logic_error if its name is taken.
  void add(PolicyFamily family);

  // Parses a policy name; `path` names where it came from ("policies[2]") in the error.
  PolicyName parse(const std::string& name, const std::string& path) const;
  const std::deque<PolicyFamily>& families() const { return families_; }
  // Each family's name with its parameters, in row order: "serial-nocache", "static:B", ..., "chunked:B,T".
  std::vector<std::string> name_forms() const;
  // The same as one line: "serial-nocache, serial-cache, static:B, ..., chunked:B,T".
  std::string name_forms_text() const;

 private:
  std::deque<PolicyFamily> families_;  // a deque: PolicyName points into it, and add() keeps it valid
};

// The registry every command, the simulator and the engine use: the built-in families.
const PolicyRegistry& policy_registry();

PolicyName parse_policy_name(const std::string& name, const std::string& path);

std::unique_ptr<Scheduler> make_scheduler(const PolicyName& policy, const KvSettings& kv = {});

// The default registry's families, in row order.
const std::deque<PolicyFamily>& families();

// A JSON list of 1 to kMaxPolicies policy name strings (sim::parse_policies parses them and refuses a
// policy given twice in any spelling); `path` names the list in errors ("options.policies").
std::vector<std::string> read_policy_names(const nlohmann::json& list, const std::string& path);

// policy_registry().name_forms().
std::vector<std::string> policy_name_forms();

// The lab's four with batch size `batch_rows`: {"serial-nocache", "serial-cache", "static:B", "continuous:B"};
// the published lab's have B = kLabBatchRows.
std::vector<std::string> default_policies(int batch_rows = kLabBatchRows);

}  // namespace kvlab::policy
