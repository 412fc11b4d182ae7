// The outermost frame of every sonde program: an error becomes one clear line on stderr and the
// exit code its kind calls for.
#pragma once

#include <functional>

namespace sonde {

int run_program(const char* program, const std::function<int()>& body);

}  // namespace sonde
