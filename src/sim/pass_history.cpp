#include "sim/pass_history.h"

#include <algorithm>

namespace kvlab::sim {

namespace {

// Passes since a prompt pass are counted up to here (beyond any table's), so that no count overflows.
constexpr int kPassesHeld = 1 << 20;

}  // namespace

double PassHistory::prompt_pass(size_t size) {
  const double tokens = static_cast<double>(size);
  double factor = 1;
  if (last_pass_ == Pass::decode) factor = prompt_pass_.after_decode(last_size_, tokens);
  if (last_pass_ == Pass::prompt) factor = prompt_pass_.after_prompt(last_size_, tokens);
  prompt_rows_ = last_pass_ == Pass::prompt ? std::max(prompt_rows_, tokens) : tokens;
  passes_since_ = 0;
  last_pass_ = Pass::prompt;
  last_size_ = tokens;
  return factor;
}

double PassHistory::decode_pass(size_t rows) {
  last_pass_ = Pass::decode;
  last_size_ = static_cast<double>(rows);
  if (prompt_rows_ == 0) return 1;
  passes_since_ = std::min(passes_since_ + 1, kPassesHeld);
  return after_prompt_.ratio(prompt_rows_, passes_since_);
}

}  // namespace kvlab::sim
