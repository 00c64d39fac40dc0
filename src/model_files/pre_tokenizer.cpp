#include "model_files/pre_tokenizer.h"

#include <cstdint>

#include "common/utf8.h"
#include "model_files/unicode_categories.h"

namespace kvlab {

namespace {

constexpr uint32_t kReplacementCharacter = 0xFFFD;

// The text's code points, each ill-formed byte one U+FFFD.
std::vector<uint32_t> code_points_of(const std::string& text) {
  std::vector<uint32_t> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const int length = utf8_sequence_length(text, i);
    if (length <= 0) {
      out.push_back(kReplacementCharacter);
      ++i;
      continue;
    }
    out.push_back(utf8_code_point(text, i, length));
    i += static_cast<size_t>(length);
  }
  return out;
}

bool is_newline(uint32_t c) { return c == '\r' || c == '\n'; }

uint32_t ascii_lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

// One run of splitting: the code points and their classes, and the piece lengths (in code points) cut
// so far. Each splitter cuts the range [begin, end) it is given, seeing nothing outside it.
struct Splitter {
  const std::vector<uint32_t>& c;
  std::vector<CharClass> cls;
  std::vector<size_t> lengths;

  explicit Splitter(const std::vector<uint32_t>& code_points) : c(code_points) {
    cls.reserve(c.size());
    for (uint32_t code_point : c) cls.push_back(char_class(code_point));
  }

  // The end of the run of `kind` from `pos`, at most `end`.
  size_t run_end(size_t pos, size_t end, CharClass kind) const {
    while (pos < end && cls[pos] == kind) ++pos;
    return pos;
  }

  // The length of 's 't 're 've 'm 'll 'd at `pos` (any case of the letters if `any_case`), or 0.
  size_t contraction(size_t pos, size_t end, bool any_case) const {
    if (c[pos] != '\'' || pos + 1 >= end) return 0;
    const auto letter = [&](size_t i) { return any_case ? ascii_lower(c[i]) : c[i]; };
    const uint32_t first = letter(pos + 1);
    if (first == 's' || first == 't' || first == 'm' || first == 'd') return 2;
    if (pos + 2 >= end) return 0;
    const uint32_t second = letter(pos + 2);
    if ((first == 'r' && second == 'e') || (first == 'v' && second == 'e') || (first == 'l' && second == 'l')) return 3;
    return 0;
  }

  // \s+(?!\S)|\s+ at `pos`, a whitespace: the whole run when the range ends after it, else the run but
  // its last character (which then starts the next piece), unless that leaves nothing.
  size_t spaces_end(size_t pos, size_t end) const {
    const size_t run = run_end(pos, end, CharClass::whitespace);
    return run < end && run - pos > 1 ? run - 1 : run;
  }

  void gpt2(size_t begin, size_t end) {
    for (size_t pos = begin; pos < end;) {
      size_t next = pos + contraction(pos, end, false);
      if (next == pos) {
        // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class.
        const size_t first = c[pos] == ' ' && pos + 1 < end ? pos + 1 : pos;
        const CharClass kind = cls[first];
        next = kind == CharClass::whitespace ? spaces_end(pos, end) : run_end(first, end, kind);
      }
      lengths.push_back(next - pos);
      pos = next;
    }
  }

  // Every digit alone (\p{N}), then gpt-2's regex on the text between digits.
  void smollm(size_t begin, size_t end) {
    for (size_t pos = begin; pos < end;) {
      if (cls[pos] == CharClass::number) {
        lengths.push_back(1);
        ++pos;
        continue;
      }
      size_t stop = pos;
      while (stop < end && cls[stop] != CharClass::number) ++stop;
      gpt2(pos, stop);
      pos = stop;
    }
  }

  // Qwen2's regex with digits one at a time (max_digits 1), Llama 3's with up to three.
  void llama3_like(size_t begin, size_t end, size_t max_digits) {
    for (size_t pos = begin; pos < end;) {
      const size_t next = llama3_match_end(pos, end, max_digits);
      lengths.push_back(next - pos);
      pos = next;
    }
  }

  size_t llama3_match_end(size_t pos, size_t end, size_t max_digits) const {
    if (const size_t n = contraction(pos, end, true)) return pos + n;
    const CharClass kind = cls[pos];
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if (kind == CharClass::letter) return run_end(pos, end, CharClass::letter);
    if (!is_newline(c[pos]) && kind != CharClass::number && pos + 1 < end && cls[pos + 1] == CharClass::letter)
      return run_end(pos + 1, end, CharClass::letter);
    // \p{N}{1,3} or \p{N}
    if (kind == CharClass::number) {
      size_t next = pos;
      while (next < end && next - pos < max_digits && cls[next] == CharClass::number) ++next;
      return next;
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
    const size_t first = c[pos] == ' ' && pos + 1 < end ? pos + 1 : pos;
    if (cls[first] == CharClass::other) {
      size_t next = run_end(first, end, CharClass::other);
      while (next < end && is_newline(c[next])) ++next;
      return next;
    }
    // `\s*[\r\n]+`: the whitespace up to its last newline (\s* gives back all that follows that newline).
    const size_t run = run_end(pos, end, CharClass::whitespace);
    for (size_t i = run; i > pos; --i)
      if (is_newline(c[i - 1])) return i;
    return spaces_end(pos, end);
  }
};

}  // namespace

const std::vector<std::pair<std::string, PreTokenizer>>& pre_tokenizer_names() {
  static const std::vector<std::pair<std::string, PreTokenizer>> names = {
      {"gpt-2", PreTokenizer::gpt2},       {"smollm", PreTokenizer::smollm}, {"qwen2", PreTokenizer::qwen2},
      {"llama-bpe", PreTokenizer::llama3}, {"llama3", PreTokenizer::llama3}, {"llama-v3", PreTokenizer::llama3},
  };
  return names;
}

std::vector<std::string> pre_tokenize(const std::string& text, PreTokenizer pre) {
  const std::vector<uint32_t> code_points = code_points_of(text);
  Splitter split(code_points);
  const size_t n = code_points.size();
  switch (pre) {
    case PreTokenizer::gpt2: split.gpt2(0, n); break;
    case PreTokenizer::smollm: split.smollm(0, n); break;
    case PreTokenizer::qwen2: split.llama3_like(0, n, 1); break;
    case PreTokenizer::llama3: split.llama3_like(0, n, 3); break;
  }
  std::vector<std::string> pieces;
  pieces.reserve(split.lengths.size());
  size_t pos = 0;
  for (size_t length : split.lengths) {
    std::string piece;
    for (size_t i = pos; i < pos + length; ++i) append_utf8(piece, code_points[i]);
    pieces.push_back(std::move(piece));
    pos += length;
  }
  return pieces;
}

}  // namespace kvlab
