#pragma once
// The policies as the command-line help names them, taken from the registry (policy/policy_registry.h).
#include <string>

namespace kvlab::cli {

// The families with a trait, as a sentence's list: those that take a KV budget ("reserve, paged and
// chunked"), those that keep no KV cache ("serial-nocache").
std::string kv_budget_families_text();
std::string uncached_families_text();

// A help footer: each policy name form with its one line of help.
std::string policy_help_footer();

}  // namespace kvlab::cli
