#include "core/error.hpp"

#include <utility>

namespace sonde {

Error::Error(ExitCode code, std::string where, const std::string& what)
    : std::runtime_error(where.empty() ? what : where + ": " + what),
      code_(code),
      where_(std::move(where)) {}

Error usage_error(std::string option, const std::string& what) {
  return Error(ExitCode::usage, std::move(option), what);
}

Error input_error(std::string where, const std::string& what) {
  return Error(ExitCode::bad_input, std::move(where), what);
}

Error io_error(std::string where, const std::string& what) {
  return Error(ExitCode::failure, std::move(where), what);
}

}  // namespace sonde
