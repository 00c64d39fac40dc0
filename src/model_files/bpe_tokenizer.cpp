#include "model_files/bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <queue>
#include <string_view>
#include <tuple>

#include "common/input_error.h"
#include "common/utf8.h"

namespace kvlab {

namespace {

// GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py; llama.cpp's unicode_byte_to_utf8_map): the bytes
// '!'..'~', 0xA1..0xAC and 0xAE..0xFF are the code points of the same value; the other 68 bytes, in
// order, are U+0100 onwards. Code point -> UTF-8 for each of them.
struct ByteSpelling {
  std::array<std::string, 256> of_byte;                 // byte -> its character, UTF-8
  std::unordered_map<std::string, unsigned char> byte;  // character, UTF-8 -> byte

  ByteSpelling() {
    int next_extra = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const int code_point = printable ? b : next_extra++;
      std::string& utf8 = of_byte[static_cast<size_t>(b)];
      append_utf8(utf8, static_cast<uint32_t>(code_point));
      byte[utf8] = static_cast<unsigned char>(b);
    }
  }
};

const ByteSpelling& byte_spelling() {
  static const ByteSpelling spelling;
  return spelling;
}

// A normal token's text back to the bytes it spells; a character outside the map (no normal token of a
// well-made vocabulary holds one) kept as its own bytes.
std::string unspelled(const std::string& text) {
  const ByteSpelling& spelling = byte_spelling();
  std::string bytes;
  for (size_t i = 0; i < text.size();) {
    const int length = std::max(utf8_sequence_length(text, i), 1);
    const std::string character = text.substr(i, static_cast<size_t>(length));
    const auto found = spelling.byte.find(character);
    if (found != spelling.byte.end())
      bytes += static_cast<char>(found->second);
    else
      bytes += character;
    i += character.size();
  }
  return bytes;
}

bool is_special(TokenType type) {
  return type == TokenType::control || type == TokenType::user_defined || type == TokenType::unknown;
}

// A stretch of the text being encoded: raw text [begin, end), or a special token found there.
struct Fragment {
  size_t begin, end;
  int token;  // the special token, or -1 for raw text
};

}  // namespace

BpeTokenizer::BpeTokenizer(const Vocabulary& vocabulary) : pre_(vocabulary.pre) {
  const std::vector<std::string>& pieces = vocabulary.pieces;
  token_bytes_.resize(pieces.size());
  for (size_t id = 0; id < pieces.size(); ++id) {
    const TokenType type = vocabulary.token_types.empty() ? TokenType::normal : vocabulary.token_types[id];
    ids_.emplace(pieces[id], static_cast<int>(id));
    if (type == TokenType::normal)
      token_bytes_[id] = unspelled(pieces[id]);
    else if (is_special(type))
      token_bytes_[id] = pieces[id];
    if (is_special(type) && !pieces[id].empty()) special_tokens_.emplace_back(pieces[id], static_cast<int>(id));
  }
  std::stable_sort(special_tokens_.begin(), special_tokens_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (size_t rank = 0; rank < vocabulary.merges.size(); ++rank)
    ranks_.emplace(vocabulary.merges[rank], static_cast<int>(rank));
}

int BpeTokenizer::lookup(const std::string& text) const {
  const auto found = ids_.find(text);
  return found == ids_.end() ? -1 : found->second;
}

std::vector<int> BpeTokenizer::encode(const std::string& text, const std::string& field) const {
  std::vector<Fragment> fragments;
  if (!text.empty()) fragments.push_back({0, text.size(), -1});
  for (const auto& [special, id] : special_tokens_) {
    std::vector<Fragment> split;
    for (const Fragment& fragment : fragments) {
      if (fragment.token >= 0) {
        split.push_back(fragment);
        continue;
      }
      const std::string_view within(text.data(), fragment.end);
      size_t pos = fragment.begin;
      for (size_t found; (found = within.find(special, pos)) != std::string_view::npos;) {
        if (found > pos) split.push_back({pos, found, -1});
        split.push_back({found, found + special.size(), id});
        pos = found + special.size();
      }
      if (pos < fragment.end) split.push_back({pos, fragment.end, -1});
    }
    fragments = std::move(split);
  }
  std::vector<int> tokens;
  for (const Fragment& fragment : fragments) {
    if (fragment.token >= 0) {
      tokens.push_back(fragment.token);
      continue;
    }
    for (const std::string& piece : pre_tokenize(text.substr(fragment.begin, fragment.end - fragment.begin), pre_))
      encode_piece(piece, field, tokens);
  }
  return tokens;
}

void BpeTokenizer::encode_piece(const std::string& piece, const std::string& field, std::vector<int>& tokens) const {
  const ByteSpelling& spelling = byte_spelling();
  // The symbols: at first one per byte of the piece, each its byte's character; symbol i starts at
  // start[i] in `spelled`, and a merge grows it by its right neighbour, which it unlinks.
  const size_t n = piece.size();
  std::string spelled;
  std::vector<size_t> start(n), length(n);
  std::vector<int> prev(n), next(n);
  for (size_t i = 0; i < n; ++i) {
    start[i] = spelled.size();
    spelled += spelling.of_byte[static_cast<unsigned char>(piece[i])];
    length[i] = spelled.size() - start[i];
    prev[i] = static_cast<int>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int>(i) + 1 : -1;
  }
  if (pre_ == PreTokenizer::llama3) {
    const int whole = lookup(spelled);
    if (whole >= 0) {
      tokens.push_back(whole);
      return;
    }
  }
  // Candidate merges (rank, left symbol, right symbol, their joint length), lowest rank then leftmost on
  // top. A candidate is stale once either symbol has changed: the joint length tells.
  using Candidate = std::tuple<int, int, int, size_t>;
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const auto found =
        ranks_.find(spelled.substr(start[left], length[left]) + ' ' + spelled.substr(start[right], length[right]));
    if (found != ranks_.end()) queue.emplace(found->second, left, right, length[left] + length[right]);
  };
  for (size_t i = 0; i + 1 < n; ++i) consider(static_cast<int>(i), static_cast<int>(i) + 1);
  while (!queue.empty()) {
    const auto [rank, left, right, joint] = queue.top();
    queue.pop();
    if (length[left] == 0 || length[right] == 0 || next[left] != right || length[left] + length[right] != joint)
      continue;
    length[left] = joint;
    length[right] = 0;
    next[left] = next[right];
    if (next[right] >= 0) prev[next[right]] = left;
    consider(prev[left], left);
    consider(left, next[left]);
  }
  for (int i = n > 0 ? 0 : -1; i >= 0; i = next[i]) {
    const int id = lookup(spelled.substr(start[i], length[i]));
    if (id >= 0) {
      tokens.push_back(id);
      continue;
    }
    // Symbol i covers the piece's bytes from i up to its next symbol.
    const size_t end = next[i] >= 0 ? static_cast<size_t>(next[i]) : n;
    for (size_t b = static_cast<size_t>(i); b < end; ++b) {
      const int byte_id = lookup(spelling.of_byte[static_cast<unsigned char>(piece[b])]);
      if (byte_id < 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(piece[b]));
        throw_range({field, "", {}}, std::string("holds the byte ") + hex + ", which the vocabulary has no token for");
      }
      tokens.push_back(byte_id);
    }
  }
}

}  // namespace kvlab
