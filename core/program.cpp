#include "core/program.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/error.hpp"

namespace sonde {

int run_program(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: internal error: {}\n", program, e.what());
    return static_cast<int>(ExitCode::failure);
  }
}

// Whether `program` can be started: a path to an executable, or a name found on the PATH.
bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string folders = path == nullptr ? "/usr/bin:/bin" : path;
  std::size_t start = 0;
  while (start <= folders.size()) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::string folder = folders.substr(start, end - start);
    if (!folder.empty() && ::access((folder + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace sonde
