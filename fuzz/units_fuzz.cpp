// Fuzzes what the command line parses (core/units.cpp: parse_bytes for sizes, parse_duration for
// --budget; predict/predictor.cpp: parse_requirement for --require): the input is an option's
// text, given to each parser. A value one accepts is what its form promises: a byte count below
// 2^63 that reads back from its digits and, shown by format_bytes, within that display's rounding;
// a duration above zero and at most a week that reads back from its seconds; a requirement with a
// known metric and a finite bound > 0. A refusal names the option.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/units.hpp"
#include "fuzz/fuzz_support.hpp"
#include "predict/predictor.hpp"

namespace {

using sonde::fuzz::finite_at_least;

// format_bytes's text ("1.50 MiB") as a number of bytes.
double displayed_bytes(const std::string& text) {
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  SONDE_FUZZ_CHECK(ec == std::errc(), "format_bytes wrote '{}'", text);
  const std::string unit(end, text.data() + text.size());
  double factor = 1;
  for (const char* name : {" B", " KiB", " MiB", " GiB", " TiB", " PiB"}) {
    if (unit == name) return number * factor;
    factor *= 1024;
  }
  sonde::fuzz::broken(fmt::format("format_bytes wrote '{}'", text));
}

void bytes(const std::string& text) {
  std::uint64_t value = 0;
  try {
    value = sonde::parse_bytes(text, "--size");
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, "--size", sonde::ExitCode::usage);
    return;
  }
  SONDE_FUZZ_CHECK(value < 9200000000000000000ull, "'{}' read as {} bytes", text, value);
  std::uint64_t again = 0;
  try {
    again = sonde::parse_bytes(std::to_string(value), "--size");
  } catch (const sonde::Error& e) {
    sonde::fuzz::broken(
        fmt::format("'{}' read as {}, which is refused: {}", text, value, e.what()));
  }
  SONDE_FUZZ_CHECK(again == value, "'{}' read as {}, which reads as {}", text, value, again);
  const std::string shown = sonde::format_bytes(static_cast<double>(value));
  const double back = displayed_bytes(shown);
  SONDE_FUZZ_CHECK(
      std::fabs(back - static_cast<double>(value)) <= 0.0051 * static_cast<double>(value),
      "'{}' read as {} bytes, shown as '{}'", text, value, shown);
}

void duration(const std::string& text) {
  double seconds = 0;
  try {
    seconds = sonde::parse_duration(text, "--budget");
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, "--budget", sonde::ExitCode::usage);
    return;
  }
  SONDE_FUZZ_CHECK(finite_at_least(seconds, 0) && seconds > 0 && seconds <= 7 * 24 * 3600.0,
                   "'{}' read as {} s", text, seconds);
  const std::string written = fmt::format("{}s", seconds);
  double again = 0;
  try {
    again = sonde::parse_duration(written, "--budget");
  } catch (const sonde::Error& e) {
    sonde::fuzz::broken(
        fmt::format("'{}' read as {}, which is refused: {}", text, written, e.what()));
  }
  SONDE_FUZZ_CHECK(again == seconds, "'{}' read as {} s, which reads as {} s", text, seconds,
                   again);
}

void requirement(const std::string& text) {
  sonde::predict::Requirement r;
  try {
    r = sonde::predict::parse_requirement(text);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, "--require", sonde::ExitCode::usage);
    return;
  }
  SONDE_FUZZ_CHECK(r.metric == "time" || r.metric == "speed" || r.metric == "speedup",
                   "'{}' read as metric '{}'", text, r.metric);
  SONDE_FUZZ_CHECK(finite_at_least(r.bound, 0) && r.bound > 0, "'{}' read with the bound {}", text,
                   r.bound);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return 0;  // an option's value
  const std::string text = sonde::fuzz::text_of(data, size);
  bytes(text);
  duration(text);
  requirement(text);
  return 0;
}
