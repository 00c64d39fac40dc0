#pragma once
// Text to token ids and back, as llama2.c's run.c does it for SentencePiece vocabularies (Llama 2's,
// TinyStories'): a vocabulary of pieces with scores, no merge list; a pair of neighbours merges into the
// piece they spell, the best-scored such pair first.
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace kvlab {

struct Vocabulary {
  std::vector<std::string> pieces;  // [vocab] each token's bytes, a space as ' ' (SentencePiece writes U+2581)
  std::vector<float> scores;        // [vocab] merge priority: the best-scored pair merges first
  int bos = 1;                      // begins every encoded text; ends generation, as EOS does
  int eos = 2;
};

class Tokenizer {
 public:
  explicit Tokenizer(Vocabulary vocabulary);

  const Vocabulary& vocabulary() const { return vocabulary_; }
  int vocab_size() const { return static_cast<int>(vocabulary_.pieces.size()); }

  // BOS, then, for non-empty text, the piece " " (SentencePiece's dummy prefix: every word, the first
  // too, starts with a space), then one token per UTF-8 character that is a piece, the character's bytes
  // as byte tokens ("<0x41>") when it is not; then merges: while some neighbouring pair spells a piece,
  // the best-scored such pair (the leftmost of equals) becomes it. A byte with no byte token is an
  // InputError naming `field`.
  std::vector<int> encode(const std::string& text, const std::string& field = "prompt") const;

  // The bytes of `token` after `previous`: a byte token's byte; the leading space of a piece right after
  // BOS dropped (the dummy prefix). Token ids must be below vocab_size().
  std::string decode(int previous, int token) const;
  // The bytes of `tokens`, the first one after `previous`.
  std::string decode(const std::vector<int>& tokens, int previous) const;

 private:
  int lookup(const std::string& piece) const;  // its id, or -1

  Vocabulary vocabulary_;
  std::unordered_map<std::string, int> ids_;  // piece -> id (the highest id of equal pieces)
  std::array<int, 256> byte_tokens_;          // byte -> id of its piece "<0xXX>", or -1
  std::vector<int> token_bytes_;              // [vocab] the byte a byte token stands for, or -1
};

}  // namespace kvlab
