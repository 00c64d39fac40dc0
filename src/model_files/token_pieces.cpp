#include "model_files/token_pieces.h"

#include "common/utf8.h"

namespace kvlab {

namespace {

const char* const kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::vector<std::string> token_pieces(const Tokenizer& tokenizer, int previous, const std::vector<int>& tokens) {
  std::vector<std::string> pieces;
  std::string pending;  // bytes of the current token, after those a character left unfinished before it
  for (int token : tokens) {
    pending += tokenizer.decode(previous, token);
    previous = token;
    std::string piece;
    size_t i = 0;
    while (i < pending.size()) {
      const int length = utf8_sequence_length(pending, i);
      if (length < 0) break;  // unfinished: kept for the next token
      if (length == 0) {
        piece += kReplacement;
        ++i;
      } else {
        piece.append(pending, i, static_cast<size_t>(length));
        i += static_cast<size_t>(length);
      }
    }
    pending.erase(0, i);
    pieces.push_back(std::move(piece));
  }
  if (!pending.empty() && !pieces.empty()) pieces.back() += kReplacement;
  return pieces;
}

std::string token_text(const Tokenizer& tokenizer, int previous, const std::vector<int>& tokens) {
  std::string text;
  for (const std::string& piece : token_pieces(tokenizer, previous, tokens)) text += piece;
  return text;
}

}  // namespace kvlab
