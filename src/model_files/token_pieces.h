#pragma once
// Generated tokens as text, one piece per token, so that a page can write an answer as it comes: each
// token's bytes as the tokenizer decodes them after the token before. A token may end inside a UTF-8
// character (byte tokens spell one a byte at a time): its unfinished bytes go with the next piece, so
// every piece is well-formed UTF-8 (what JSON holds) and the pieces join to the text.
#include <string>
#include <vector>

#include "model_files/tokenizer.h"

namespace kvlab {

// One piece per token of `tokens`, the first decoded after `previous`. Bytes that do not form a
// character (and any left unfinished after the last token) become U+FFFD, as the JSON of
// `kvlab generate` shows them.
std::vector<std::string> token_pieces(const Tokenizer& tokenizer, int previous, const std::vector<int>& tokens);

// The pieces of token_pieces() joined: `tokens` as well-formed UTF-8 text.
std::string token_text(const Tokenizer& tokenizer, int previous, const std::vector<int>& tokens);

}  // namespace kvlab
