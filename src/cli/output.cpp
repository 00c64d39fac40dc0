#include "cli/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>

namespace kvlab::cli {

void print_json(const nlohmann::json& value) { std::cout << std::setw(2) << value << '\n'; }

int with_output_checked(int status) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  if (std::cout && flushed && !std::ferror(stdout)) return status;
  const int reason = errno;
  std::cerr << "kvlab: the output could not be written to stdout" << (reason ? ": " : "")
            << (reason ? std::strerror(reason) : "") << "\n";
  return 1;
}

}  // namespace kvlab::cli
