// What the fuzz targets share: the input as text, and the checks whose failure is a finding. A
// finding aborts, so that libFuzzer keeps the input (docs/fuzzing.md).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sonde::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The reader accepted what its format forbids, or refused without saying where or what.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "sonde fuzz: invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// SONDE_FUZZ_CHECK(condition, format, arguments...): a finding unless the condition holds (the
// message is only formatted then).
#define SONDE_FUZZ_CHECK(condition, ...)                               \
  do {                                                                 \
    if (!(condition)) ::sonde::fuzz::broken(fmt::format(__VA_ARGS__)); \
  } while (false)

inline bool finite_at_least(double value, double least) {
  return std::isfinite(value) && value >= least;
}

// A refusal names its place, beginning with the file or the option it read (`where`), has the
// exit code of its kind, says what was expected after the place, and shows what cannot be seen
// (its message prints whole: no NUL ends it early, no control character acts on the terminal).
inline void check_refusal(const Error& error, std::string_view where, ExitCode code) {
  const std::string what = error.what();
  SONDE_FUZZ_CHECK(error.code() == code, "'{}' has exit code {}, not {}", what,
                   static_cast<int>(error.code()), static_cast<int>(code));
  SONDE_FUZZ_CHECK(error.where().rfind(where, 0) == 0, "'{}' names '{}', not '{}'", what,
                   visible(error.where()), where);
  SONDE_FUZZ_CHECK(visible(error.where()) == error.where(), "'{}' has a place that hides text",
                   what);
  SONDE_FUZZ_CHECK(what.rfind(error.where(), 0) == 0 && what.size() > error.where().size() + 2,
                   "'{}' says nothing after its place", what);
  SONDE_FUZZ_CHECK(visible(what) == what, "'{}' holds what cannot be seen", visible(what));
}

}  // namespace sonde::fuzz
