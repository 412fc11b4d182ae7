#include "core/program.hpp"

#include <fmt/format.h>

#include <cstdio>
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

}  // namespace sonde
