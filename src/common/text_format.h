#pragma once
// printf into a std::string, for the text reports. Declared with the printf attribute so that the
// compiler checks every pattern against its arguments.
#include <string>
#include <vector>

namespace kvlab {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

// A count with thousands separators, as the messages show it: 8000000 -> "8,000,000".
std::string grouped(unsigned long long count);

// Rows of cells as text columns: the first column aligned left, the others right, two spaces apart,
// one line a row. Every row has as many cells as the first.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

// Items joined with ", ", as help texts and messages list names: {"a", "b"} -> "a, b".
std::string comma_list(const std::vector<std::string>& items);

}  // namespace kvlab
