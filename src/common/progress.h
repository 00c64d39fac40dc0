#pragma once
// How long work reports how far it has got: the command line draws it on stderr, the page as a bar.
#include <functional>
#include <string>

namespace kvlab {

// Called with the fraction done (0..1) and the current phase's name.
using ProgressFn = std::function<void(double fraction, const std::string& phase)>;

}  // namespace kvlab
