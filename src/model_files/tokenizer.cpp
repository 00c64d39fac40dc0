#include "model_files/tokenizer.h"

#include <cstdio>
#include <queue>

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

// run.c's scan starts from this best score, so a pair scored at or below it never merges.
constexpr float kNoMergeScore = -1e10f;

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
  if (text.size() > kMaxTextBytes)
    throw_range({field, "", integers_from(0, static_cast<long long>(kMaxTextBytes))},
                "is " + std::to_string(text.size()) + " bytes long, more than the " + std::to_string(kMaxTextBytes) +
                    " kvlab encodes (8 bytes for each of the longest context's 8,192 positions)");
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
  return merged(tokens);
}

// The merges over a list of symbols linked both ways, with a priority queue of candidate pairs: the
// best score first, the leftmost of equals (symbols keep their first index, so the smaller left index is
// the leftmost pair), as the scan of every pair for every merge chose, in O(n log n) instead of O(n^2). A
// candidate is stale once either of its symbols has merged or become another token: the ids tell.
std::vector<int> Tokenizer::merged(const std::vector<int>& tokens) const {
  const int n = static_cast<int>(tokens.size());
  std::vector<int> id = tokens, prev(tokens.size()), next(tokens.size());
  for (int i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    float score;
    int left, right, left_id, right_id, merged_id;
  };
  const auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> queue(worse);
  const auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const int merged_id = lookup(vocabulary_.pieces[id[left]] + vocabulary_.pieces[id[right]]);
    // Scores at or below the old scan's starting best, and NaN, never won a merge.
    if (merged_id >= 0 && vocabulary_.scores[merged_id] > kNoMergeScore)
      queue.push({vocabulary_.scores[merged_id], left, right, id[left], id[right], merged_id});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i, i + 1);
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    if (id[c.left] != c.left_id || id[c.right] != c.right_id || next[c.left] != c.right) continue;
    id[c.left] = c.merged_id;
    id[c.right] = -1;
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = c.left;
    consider(prev[c.left], c.left);
    consider(c.left, next[c.left]);
  }
  std::vector<int> out;
  for (int i = n > 0 ? 0 : -1; i >= 0; i = next[i]) out.push_back(id[i]);
  return out;
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
