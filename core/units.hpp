// Units: SI in files, humane units on screens. Byte sizes are binary (KiB = 1024 B) as cache
// capacities are; rates are decimal (GB/s = 1e9 B/s) as STREAM and likwid report them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sonde {

// "48 KiB", "1.5 MiB", "256 MiB".
std::string format_bytes(double bytes);
// "812 ps", "1.23 ns", "4.50 us", "2.00 s".
std::string format_seconds(double seconds);
// "36.3 GB/s".
std::string format_bytes_per_second(double bytes_per_second);
// "2.60 GHz".
std::string format_hertz(double hertz);
// Three significant digits with a decimal prefix: "266 Mflop/s", "11.5 Gflop".
std::string format_si(double value, std::string_view unit);

// The whole of `text` as a finite number ("2e6", "0.5"), or nullopt: nothing may follow it.
std::optional<double> parse_number(const std::string& text);

// Parses a byte count: "4096", "4096B", "48KiB", "48 KiB", "1.5MiB", "2GiB"; K, M, G, T alone are
// binary too. Decimal kB, MB, GB, TB are accepted and mean powers of 1000. Anything else, a
// negative or fractional byte count, or a value beyond 2^63 throws a usage Error naming `what` (the
// option or field being parsed) and the expected form.
std::uint64_t parse_bytes(std::string_view text, const std::string& what);

// Parses a duration in seconds: "600", "90s", "10m", "1.5h", "1h30m". Anything else, zero or a
// negative duration throws a usage Error naming `what`.
double parse_duration(std::string_view text, const std::string& what);

}  // namespace sonde
