#pragma once
// UTF-8 as JSON text must hold it: well-formed sequences only (no overlong forms, no surrogates, nothing
// past U+10FFFF). A model writes bytes one token at a time, and a token may end inside a character.
#include <cstddef>
#include <string>

namespace kvlab {

// The length of the well-formed sequence starting at text[i]: 1 to 4; 0 if the bytes there are not one;
// -1 if they begin one that the text ends before it is complete.
int utf8_sequence_length(const std::string& text, size_t i);

bool is_valid_utf8(const std::string& text);

// Characters (code points) in `text`, counting every byte that does not continue a sequence.
size_t utf8_length(const std::string& text);

// At most `max_chars` characters of `text`, never cutting inside one.
std::string utf8_prefix(const std::string& text, size_t max_chars);

}  // namespace kvlab
