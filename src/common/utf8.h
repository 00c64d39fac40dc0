#pragma once
// UTF-8 as JSON text must hold it: well-formed sequences only (no overlong forms, no surrogates, nothing
// past U+10FFFF). A model writes bytes one token at a time, and a token may end inside a character.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kvlab {

// The length of the well-formed sequence starting at text[i]: 1 to 4; 0 if the bytes there are not one;
// -1 if they begin one that the text ends before it is complete.
int utf8_sequence_length(const std::string& text, size_t i);

bool is_valid_utf8(const std::string& text);

// The code point of the well-formed sequence of `length` bytes (utf8_sequence_length's) at text[i].
uint32_t utf8_code_point(const std::string& text, size_t i, int length);

// Appends code point `c` (at most U+10FFFF, not a surrogate) as UTF-8.
void append_utf8(std::string& out, uint32_t c);

// Characters (code points) in `text`, counting every byte that does not continue a sequence.
size_t utf8_length(const std::string& text);

// At most `max_chars` characters of `text`, never cutting inside one.
std::string utf8_prefix(const std::string& text, size_t max_chars);

}  // namespace kvlab
