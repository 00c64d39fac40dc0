#pragma once
// printf into a std::string, for the text reports. Declared with the printf attribute so that the
// compiler checks every pattern against its arguments.
#include <string>

namespace kvlab {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

}  // namespace kvlab
