#pragma once
// What ran before each forward pass of a simulated run, and what it does to the pass's price: a decode
// pass soon after a prompt pass runs slower (after_prompt.h), a prompt pass runs faster or slower by the
// pass right before it (prompt_pass.h). The priced backend tells it of every pass and multiplies the
// pass's table price by the factor it returns. With both parts empty every factor is 1.
#include <cstddef>

#include "sim/after_prompt.h"
#include "sim/prompt_pass.h"

namespace kvlab::sim {

class PassHistory {
 public:
  PassHistory(const AfterPromptTable& after_prompt, const PromptPassTable& prompt_pass)
      : after_prompt_(after_prompt), prompt_pass_(prompt_pass) {}

  // A prompt pass of `size` (a prefill's tokens; a no-cache pass's sequence; a mixed step's largest
  // chunk): the factor on its table price.
  double prompt_pass(size_t size);
  // A decode pass of `rows` rows: the factor on its table price.
  double decode_pass(size_t rows);

 private:
  enum class Pass { none, decode, prompt };

  const AfterPromptTable& after_prompt_;
  const PromptPassTable& prompt_pass_;
  Pass last_pass_ = Pass::none;
  double last_size_ = 0;    // the last pass's rows (decode) or tokens (prompt)
  double prompt_rows_ = 0;  // size of the last prompt pass (the largest of consecutive ones); 0: none yet
  int passes_since_ = 0;    // decode passes since it
};

}  // namespace kvlab::sim
