#include "common/utf8.h"

namespace kvlab {

int utf8_sequence_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  // The sequence's length and the range of its second byte (the lead decides both; later bytes are
  // always 0x80..0xBF), as the Unicode standard's table of well-formed sequences gives them.
  int length = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  for (int k = 1; k < length; ++k) {
    if (i + k >= text.size()) return -1;
    const unsigned char next = byte(i + k);
    if (k == 1 ? next < low || next > high : next < 0x80 || next > 0xBF) return 0;
  }
  return length;
}

bool is_valid_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const int length = utf8_sequence_length(text, i);
    if (length <= 0) return false;
    i += static_cast<size_t>(length);
  }
  return true;
}

namespace {

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

size_t utf8_length(const std::string& text) {
  size_t count = 0;
  for (char c : text) count += is_continuation_byte(c) ? 0 : 1;
  return count;
}

std::string utf8_prefix(const std::string& text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (is_continuation_byte(text[i])) continue;
    if (chars == max_chars) return text.substr(0, i);
    ++chars;
  }
  return text;
}

}  // namespace kvlab
