#pragma once
// The policies as the command-line help names them, taken from the registry (policy/policy_registry.h).
#include <string>

namespace kvlab::cli {

// "serial-nocache, serial-cache, static:B, ..., chunked:B,T": every policy name form.
std::string policy_forms_text();

// The families with a trait, as a sentence's list: "reserve, paged and chunked" (takes_kv_budget).
std::string kv_budget_families_text();
std::string uncached_families_text();

// A help footer: each policy name form with its one line of help.
std::string policy_help_footer();

}  // namespace kvlab::cli
