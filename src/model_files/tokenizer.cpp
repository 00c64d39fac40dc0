#include "model_files/tokenizer.h"

#include <cstdio>

#include "common/input_error.h"
#include "model_files/bpe_tokenizer.h"

namespace kvlab {

namespace {

// "<0x41>" -> 0x41; anything else -> -1. SentencePiece's byte pieces use two upper-case hex digits.
int byte_of_piece(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    const char c = piece[i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

Tokenizer::Tokenizer(Vocabulary vocabulary) : vocabulary_(std::move(vocabulary)) {
  byte_tokens_.fill(-1);
  if (vocabulary_.model == TokenizerModel::bpe) {
    bpe_ = std::make_shared<const BpeTokenizer>(vocabulary_);
    return;
  }
  token_bytes_.assign(vocabulary_.pieces.size(), -1);
  for (int id = 0; id < vocab_size(); ++id) {
    const std::string& piece = vocabulary_.pieces[id];
    // SentencePiece puts its byte pieces first (ids 3-258) and spells a character with one only when no
    // other piece does. A file that writes byte pieces as the bytes they stand for (llama2.c's early
    // exports, stories15M's among them) has a byte piece and a real piece for "." or ","; the real one,
    // the later id, is what the model was trained on.
    ids_[piece] = id;
    const int byte = byte_of_piece(piece);
    if (byte < 0) continue;
    token_bytes_[id] = byte;
    if (byte_tokens_[byte] < 0) byte_tokens_[byte] = id;
  }
}

int Tokenizer::lookup(const std::string& piece) const {
  auto found = ids_.find(piece);
  return found == ids_.end() ? -1 : found->second;
}

std::vector<int> Tokenizer::encode(const std::string& text, const std::string& field) const {
  if (bpe_) {
    std::vector<int> tokens;
    if (vocabulary_.add_bos) tokens.push_back(vocabulary_.bos);
    const std::vector<int> body = bpe_->encode(text, field);
    tokens.insert(tokens.end(), body.begin(), body.end());
    if (tokens.empty()) throw_range({field, "\"\"", {}}, "must not be empty: this model's tokenizer adds no BOS");
    return tokens;
  }
  std::vector<int> tokens = {vocabulary_.bos};
  auto add_bytes = [&](const std::string& bytes) {
    for (unsigned char byte : bytes) {
      if (byte_tokens_[byte] < 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", byte);
        throw_range({field, "", {}}, std::string("holds the byte ") + hex + ", which the vocabulary has no token for");
      }
      tokens.push_back(byte_tokens_[byte]);
    }
  };
  auto add_piece = [&](const std::string& piece) {
    const int id = lookup(piece);
    if (id >= 0)
      tokens.push_back(id);
    else
      add_bytes(piece);
  };
  if (!text.empty()) add_piece(" ");
  // One UTF-8 character at a time (as run.c: a lead byte and up to three continuation bytes).
  for (size_t start = 0; start < text.size();) {
    size_t end = start + 1;
    while (end < text.size() && is_continuation(static_cast<unsigned char>(text[end])) && end - start < 4) ++end;
    add_piece(text.substr(start, end - start));
    start = end;
  }
  while (true) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_index = 0;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const int id = lookup(vocabulary_.pieces[tokens[i]] + vocabulary_.pieces[tokens[i + 1]]);
      if (id >= 0 && vocabulary_.scores[id] > best_score) {
        best_score = vocabulary_.scores[id];
        best_id = id;
        best_index = i;
      }
    }
    if (best_id < 0) break;
    tokens[best_index] = best_id;
    tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
  }
  return tokens;
}

std::string Tokenizer::decode(int previous, int token) const {
  if (bpe_) return bpe_->decode(token);
  const int byte = token_bytes_[token];
  if (byte >= 0) return std::string(1, static_cast<char>(byte));
  const std::string& piece = vocabulary_.pieces[token];
  if (previous == vocabulary_.bos && !piece.empty() && piece[0] == ' ') return piece.substr(1);
  return piece;
}

std::string Tokenizer::decode(const std::vector<int>& tokens, int previous) const {
  std::string text;
  for (int token : tokens) {
    text += decode(previous, token);
    previous = token;
  }
  return text;
}

}  // namespace kvlab
