#include "common/input_error.h"

namespace kvlab {

void throw_range(const std::string& message) { throw InputError(ErrorKind::range, message); }
void throw_type(const std::string& message) { throw InputError(ErrorKind::type, message); }

}  // namespace kvlab
