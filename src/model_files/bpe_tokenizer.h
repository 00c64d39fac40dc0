#pragma once
// Byte-level BPE, GGUF's tokenizer model "gpt2", as llama.cpp's llama-vocab.cpp runs it
// (llm_tokenizer_bpe_session, tokenizer_st_partition, token_to_piece). Every byte has a token: GPT-2's
// byte-to-unicode map spells each of the 256 bytes as a printable character (the printable ASCII and
// Latin-1 bytes as themselves, the rest, space among them, as U+0100 onwards: ' ' is 'Ġ'), and a token's
// text is the spelling of its bytes. A merge list ranks the pairs of neighbouring tokens that join.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model_files/tokenizer.h"

namespace kvlab {

class BpeTokenizer {
 public:
  // `vocabulary` is a BPE one (its pieces, merges, token types, pre-tokenizer); it is copied from, not kept.
  explicit BpeTokenizer(const Vocabulary& vocabulary);

  // The tokens of `text`, no BOS:
  //  1. Special tokens: every control, user-defined or unknown token whose text appears in `text`
  //     ("<|im_start|>") is that token, as llama.cpp's tokenizer_st_partition finds them with
  //     parse_special on (as llama-cli and llama-server read a prompt): the longest such token first
  //     through the whole text, then the next longest in what is left between.
  //  2. The text between is cut by the vocabulary's pre-tokenizer (pre_tokenizer.h; ill-formed UTF-8
  //     becomes U+FFFD there), and each piece's bytes spelled through the byte-to-unicode map.
  //  3. A piece that is itself a token is that token when the pre-tokenizer is Llama 3's (llama.cpp's
  //     ignore_merges). Otherwise its characters merge: while some neighbouring pair is a merge, the
  //     lowest-ranked such pair (the leftmost of equals) joins.
  //  4. Each part that is a token is it; one that is not (a merge list naming pairs the vocabulary lacks)
  //     is its characters' tokens. A character with no token is an InputError naming `field`.
  std::vector<int> encode(const std::string& text, const std::string& field) const;

  // The bytes `token` stands for: a normal token's text back through the byte-to-unicode map (a character
  // outside the map kept as it is); a control, user-defined or unknown token's text as it stands (so that
  // decoding what encode made gives the text back); nothing for an unused, byte or undefined token, as
  // llama.cpp's token_to_piece gives. `token` must be below the vocabulary's size.
  const std::string& decode(int token) const { return token_bytes_[static_cast<size_t>(token)]; }

 private:
  void encode_piece(const std::string& piece, const std::string& field, std::vector<int>& tokens) const;
  int lookup(const std::string& text) const;  // its id, or -1

  PreTokenizer pre_;
  std::unordered_map<std::string, int> ids_;    // token text -> id (the lowest id of equal texts)
  std::unordered_map<std::string, int> ranks_;  // merge "a b" -> rank (the first listing of a repeated one)
  std::vector<std::pair<std::string, int>> special_tokens_;  // control, user-defined, unknown: longest first
  std::vector<std::string> token_bytes_;                     // [vocab] what decode() gives
};

}  // namespace kvlab
