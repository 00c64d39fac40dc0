#pragma once
// A byte-level BPE vocabulary never merges across the pieces its pre-tokenizer cuts text into: words with
// their leading space, runs of digits, of punctuation, of whitespace. Each family cuts with its own regex,
// which GGUF names in tokenizer.ggml.pre; these are llama.cpp's (src/llama-vocab.cpp, llm_tokenizer_bpe,
// and src/unicode.cpp, which runs them), matched here by hand: std::regex knows no \p{L} or \p{N}.
//   gpt-2      's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   smollm     \p{N} first (every digit a piece of its own), then gpt-2's on the text between digits
//   qwen2      (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|
//               ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   llama-bpe  qwen2's with \p{N}{1,3}: digits three at a time (Llama 3's)
// (llama.cpp lists gpt-2's regex without the final \s+, but the code that runs it, unicode.cpp's
// unicode_regex_split_custom_gpt2, matches it.) A regex runs on each piece the step before left, so its
// lookahead (?!\S) sees the end of the piece, not the text after it. The character classes are
// unicode_categories.h's.
#include <string>
#include <utility>
#include <vector>

namespace kvlab {

enum class PreTokenizer { gpt2, smollm, qwen2, llama3 };

// Each tokenizer.ggml.pre value kvlab reads, with llama.cpp's aliases that run the same regex.
const std::vector<std::pair<std::string, PreTokenizer>>& pre_tokenizer_names();

// `text` cut into pieces that join to it. A byte that is not part of well-formed UTF-8 becomes U+FFFD
// (EF BF BD), one for each such byte, as llama.cpp's unicode_cpts_from_utf8 does: the pieces are UTF-8.
std::vector<std::string> pre_tokenize(const std::string& text, PreTokenizer pre);

}  // namespace kvlab
