#pragma once
// printf into a std::string, for the text reports. Declared with the printf attribute so that the
// compiler checks every pattern against its arguments.
#include <string>
#include <vector>

namespace kvlab {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

// Rows of cells as text columns: the first column aligned left, the others right, two spaces apart,
// one line a row. Every row has as many cells as the first.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace kvlab
