#include "core/units.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace sonde {
namespace {

// Three significant digits, as a person reads a measurement with a few percent of noise.
std::string three_digits(double value, std::string_view unit) {
  if (value >= 100) return fmt::format("{:.0f} {}", value, unit);
  if (value >= 10) return fmt::format("{:.1f} {}", value, unit);
  return fmt::format("{:.2f} {}", value, unit);
}

}  // namespace

std::string format_si(double value, std::string_view unit) {
  static constexpr std::array<std::string_view, 7> prefixes{"", "k", "M", "G", "T", "P", "E"};
  std::size_t i = 0;
  while (std::fabs(value) >= 1000 && i + 1 < prefixes.size()) {
    value /= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}{}", value, prefixes[i], unit);
}

std::string format_bytes(double bytes) {
  static constexpr std::array<std::string_view, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (std::fabs(bytes) >= 1024 && unit + 1 < units.size()) {
    bytes /= 1024;
    ++unit;
  }
  if (bytes == std::floor(bytes)) return fmt::format("{:.0f} {}", bytes, units[unit]);
  return three_digits(bytes, units[unit]);
}

std::string format_seconds(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude == 0) return "0 s";
  if (magnitude < 1e-9) return three_digits(seconds * 1e12, "ps");
  if (magnitude < 1e-6) return three_digits(seconds * 1e9, "ns");
  if (magnitude < 1e-3) return three_digits(seconds * 1e6, "us");
  if (magnitude < 1) return three_digits(seconds * 1e3, "ms");
  return three_digits(seconds, "s");
}

std::string format_bytes_per_second(double bytes_per_second) {
  const double magnitude = std::fabs(bytes_per_second);
  if (magnitude >= 1e12) return three_digits(bytes_per_second / 1e12, "TB/s");
  if (magnitude >= 1e9) return three_digits(bytes_per_second / 1e9, "GB/s");
  if (magnitude >= 1e6) return three_digits(bytes_per_second / 1e6, "MB/s");
  if (magnitude >= 1e3) return three_digits(bytes_per_second / 1e3, "kB/s");
  return three_digits(bytes_per_second, "B/s");
}

std::string format_hertz(double hertz) {
  if (hertz >= 1e9) return three_digits(hertz / 1e9, "GHz");
  if (hertz >= 1e6) return three_digits(hertz / 1e6, "MHz");
  return three_digits(hertz, "Hz");
}

std::uint64_t parse_bytes(std::string_view text, const std::string& what) {
  const auto fail = [&](const std::string& problem) {
    return usage_error(what, fmt::format("'{}' {}; expected a byte count such as 4096, 48KiB, "
                                         "1.5MiB or 2GiB",
                                         text, problem));
  };
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  double number = 0;
  const char* first = text.data() + begin;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, number);
  if (ec != std::errc() || !std::isfinite(number)) throw fail("is not a number");
  std::string unit(end, last);
  std::erase_if(unit, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });

  struct Unit {
    std::string_view name;
    double factor;
  };
  static constexpr std::array<Unit, 17> known{{{"", 1},
                                               {"B", 1},
                                               {"K", 1024.0},
                                               {"KiB", 1024.0},
                                               {"M", 1048576.0},
                                               {"MiB", 1048576.0},
                                               {"G", 1073741824.0},
                                               {"GiB", 1073741824.0},
                                               {"T", 1099511627776.0},
                                               {"TiB", 1099511627776.0},
                                               {"kB", 1e3},
                                               {"KB", 1e3},
                                               {"MB", 1e6},
                                               {"GB", 1e9},
                                               {"TB", 1e12},
                                               {"k", 1e3},
                                               {"Ki", 1024.0}}};
  const Unit* found = nullptr;
  for (const Unit& candidate : known) {
    if (candidate.name == unit) found = &candidate;
  }
  if (found == nullptr) throw fail(fmt::format("has the unknown unit '{}'", unit));
  const double bytes = number * found->factor;
  if (bytes < 0) throw fail("is negative");
  if (bytes != std::floor(bytes)) throw fail("is not a whole number of bytes");
  if (bytes >= 9.2e18) throw fail("is too large");
  return static_cast<std::uint64_t>(bytes);
}

double parse_duration(std::string_view text, const std::string& what) {
  const auto fail = [&](const std::string& problem) {
    return usage_error(what, fmt::format("'{}' {}; expected a duration such as 600, 90s, 10m or "
                                         "1h30m",
                                         text, problem));
  };
  double total = 0;
  const char* at = text.data();
  const char* last = text.data() + text.size();
  if (at == last) throw fail("is empty");
  double previous_factor = 0;  // units go from hours down to seconds, each once
  while (at != last) {
    double number = 0;
    const auto [end, ec] = std::from_chars(at, last, number);
    if (ec != std::errc() || !std::isfinite(number) || number < 0) throw fail("is not a duration");
    at = end;
    double factor = 1;
    if (at == last) {
      if (previous_factor != 0) throw fail("has a number without a unit after the first");
    } else {
      switch (*at) {
        case 's':
          factor = 1;
          break;
        case 'm':
          factor = 60;
          break;
        case 'h':
          factor = 3600;
          break;
        default:
          throw fail(fmt::format("has the unknown unit '{}'", *at));
      }
      ++at;
      if (previous_factor != 0 && factor >= previous_factor) {
        throw fail("has its units out of order or twice (hours, then minutes, then seconds)");
      }
      previous_factor = factor;
    }
    total += number * factor;
  }
  if (!(total > 0)) throw fail("is not longer than zero");
  if (total > 7 * 24 * 3600.0) throw fail("is longer than a week");
  return total;
}

std::optional<double> parse_number(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (text.empty() || used != text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace sonde
