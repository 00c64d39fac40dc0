#pragma once
// Text to token ids and back, for the two kinds of vocabulary a model file holds. SentencePiece's
// (Llama 2's, TinyStories'), as llama2.c's run.c does it: a vocabulary of pieces with scores, no merge
// list; a pair of neighbours merges into the piece they spell, the best-scored such pair first. Byte-level
// BPE's (GGUF's tokenizer model "gpt2": SmolLM2, Qwen2, Llama 3), as llama.cpp does it: bpe_tokenizer.h.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model_files/pre_tokenizer.h"

namespace kvlab {

// What GGUF's tokenizer.ggml.token_type says a token is (llama.cpp's llama_token_type).
enum class TokenType : int32_t { undefined = 0, normal, unknown, control, user_defined, unused, byte };

enum class TokenizerModel { sentencepiece, bpe };

// The most merges a BPE vocabulary may list: Llama 3's 128,256 tokens come with 280,147. Checked before
// they are read (each costs about 100 bytes of memory once ranked).
constexpr uint64_t kMaxMerges = 524288;
// The most bytes of text a vocabulary's tokens, and its merges, may hold: Qwen2's 151,936 tokens hold
// about 1 MB, their merges about 2 MB. The readers hold each a few times over (the list, the lookup
// tables), so these bound what a vocabulary costs whatever the file's size.
constexpr uint64_t kMaxVocabularyBytes = uint64_t{16} << 20;
constexpr uint64_t kMaxMergesBytes = uint64_t{16} << 20;
// The longest text encode() takes, in bytes: 8 for each of the longest context's 8,192 positions,
// where English averages about 4 bytes a token; also below Linux's 131,072-byte bound on one
// command-line argument, so that the CLI's --prompt meets this limit, named, rather than the system's.
constexpr size_t kMaxTextBytes = 65536;

struct Vocabulary {
  TokenizerModel model = TokenizerModel::sentencepiece;
  // [vocab] each token's text. SentencePiece: its bytes, a space as ' ' (SentencePiece writes U+2581).
  // BPE: a normal token's bytes each spelled as GPT-2's byte-to-unicode map spells it (" the" is "Ġthe");
  // a control or user-defined token's text as it stands ("<|im_start|>").
  std::vector<std::string> pieces;
  std::vector<float> scores;  // [vocab] SentencePiece's merge priority: the best-scored pair merges first
  int bos = 1;                // begins every encoded text (if add_bos); ends generation, as EOS does
  int eos = 2;
  // Byte-level BPE only:
  std::vector<std::string> merges;     // "Ġ t": the pair that merges, the first listed merging first
  std::vector<TokenType> token_types;  // [vocab], or empty: every token normal
  PreTokenizer pre = PreTokenizer::gpt2;
  bool add_bos = true;  // BPE encodes text without BOS unless this says to (SentencePiece always adds it)
};

class BpeTokenizer;

class Tokenizer {
 public:
  explicit Tokenizer(Vocabulary vocabulary);

  const Vocabulary& vocabulary() const { return vocabulary_; }
  int vocab_size() const { return static_cast<int>(vocabulary_.pieces.size()); }
  // Whether encode() starts with BOS: the text's tokens begin after it.
  bool adds_bos() const { return vocabulary_.model == TokenizerModel::sentencepiece || vocabulary_.add_bos; }

  // SentencePiece: BOS, then, for non-empty text, the piece " " (SentencePiece's dummy prefix: every
  // word, the first too, starts with a space), then one token per UTF-8 character that is a piece, the
  // character's bytes as byte tokens ("<0x41>") when it is not; then merges: while some neighbouring pair
  // spells a piece, the best-scored such pair (the leftmost of equals) becomes it. A byte with no byte
  // token is an InputError naming `field`.
  // BPE: BOS if the vocabulary's add_bos says so, then BpeTokenizer::encode's tokens. Empty text without
  // BOS would be no tokens, which no model can continue: an InputError naming `field`. Text over
  // kMaxTextBytes is an InputError naming `field`, before any work.
  std::vector<int> encode(const std::string& text, const std::string& field = "prompt") const;

  // The bytes of `token` after `previous`. SentencePiece: a byte token's byte; the leading space of a
  // piece right after BOS dropped (the dummy prefix). BPE: BpeTokenizer::decode's, whatever `previous`.
  // Token ids must be below vocab_size().
  std::string decode(int previous, int token) const;
  // The bytes of `tokens`, the first one after `previous`.
  std::string decode(const std::vector<int>& tokens, int previous) const;

 private:
  int lookup(const std::string& piece) const;  // its id, or -1
  // SentencePiece's merges applied to `tokens` until no neighbouring pair spells a piece.
  std::vector<int> merged(const std::vector<int>& tokens) const;

  Vocabulary vocabulary_;
  std::shared_ptr<const BpeTokenizer> bpe_;   // set for a BPE vocabulary; the tables below for SentencePiece
  std::unordered_map<std::string, int> ids_;  // piece -> id (the highest id of equal pieces)
  std::array<int, 256> byte_tokens_;          // byte -> id of its piece "<0xXX>", or -1
  std::vector<int> token_bytes_;              // [vocab] the byte a byte token stands for, or -1
};

}  // namespace kvlab
