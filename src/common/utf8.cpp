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

uint32_t utf8_code_point(const std::string& text, size_t i, int length) {
  // The lead byte's payload bits: 7, 5, 4 or 3 of them for sequences of 1 to 4 bytes.
  static constexpr uint32_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  const auto byte = [&](int k) { return static_cast<uint32_t>(static_cast<unsigned char>(text[i + k])); };
  uint32_t code_point = byte(0) & kLeadMask[length];
  for (int k = 1; k < length; ++k) code_point = (code_point << 6) | (byte(k) & 0x3F);
  return code_point;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
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
