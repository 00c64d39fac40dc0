#pragma once
// What a command prints on stdout, and the check that all of it got there: a write that fails (a full
// disk, a file closed under us) is an error with a non-zero exit status, not a silent exit 0.
#include <nlohmann/json.hpp>

namespace kvlab::cli {

// Prints `value` as JSON indented by 2, then a newline, rendered straight into stdout: a 1,000,000-request
// timeline (763 MB of text) is never held as one string besides the document.
void print_json(const nlohmann::json& value);

// `status` once everything written to stdout has reached it; else 1, with the reason on stderr.
int with_output_checked(int status);

}  // namespace kvlab::cli
