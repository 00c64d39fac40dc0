#include "common/text_format.h"

#include <cstdarg>
#include <cstdio>

namespace kvlab {

std::string format(const char* pattern, ...) {
  va_list args;
  va_start(args, pattern);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, pattern, copy);
  va_end(copy);
  std::string text(static_cast<size_t>(n > 0 ? n : 0) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), pattern, args);
  va_end(args);
  text.pop_back();
  return text;
}

}  // namespace kvlab
