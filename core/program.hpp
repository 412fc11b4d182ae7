// The outermost frame of every sonde program: an error becomes one clear line on stderr and the
// exit code its kind calls for.
#pragma once

#include <functional>
#include <string>

namespace sonde {

int run_program(const char* program, const std::function<int()>& body);

// Whether `program` can be started: a path to an executable, or a name found on the PATH.
bool on_path(const std::string& program);

}  // namespace sonde
