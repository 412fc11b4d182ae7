#include "export/common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

namespace sonde::exports::detail {

std::string shortest(double value) { return fmt::format("{}", value); }

std::string fixed_decimal(double value) {
  if (value == 0 || !std::isfinite(value)) return "0";
  // The fewest significant digits that read back to the same double, then as many decimals.
  int digits = 0;
  while (digits < 16 && std::stod(fmt::format("{:.{}e}", value, digits)) != value) ++digits;
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  std::string text = fmt::format("{:.{}f}", value, std::max(0, digits - magnitude));
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::vector<std::string> wrap(const std::string& prefix, const std::string& text,
                              std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  // Continuation lines keep the comment leader ("# ", "// ") and align under the text.
  const std::string leader = prefix.substr(0, prefix.find(' ') + 1);
  const std::string continuation =
      leader + std::string(prefix.size() - leader.size() + (prefix == leader ? 2 : 0), ' ');
  std::string word, line = prefix;
  bool at_start = true;
  while (words >> word) {
    if (!at_start && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line = continuation;
      at_start = true;
    }
    if (!at_start) line += ' ';
    line += word;
    at_start = false;
  }
  lines.push_back(line);
  return lines;
}

std::string comment_header(const std::string& leader, const std::vector<std::string>& comments,
                           const std::vector<std::string>& not_expressed) {
  std::string out;
  for (const std::string& comment : comments) {
    for (const std::string& line : wrap(leader, comment)) out += line + "\n";
  }
  out += leader + "Not expressed:\n";
  for (const std::string& item : not_expressed) {
    for (const std::string& line : wrap(leader + "- ", item)) out += line + "\n";
  }
  return out;
}

std::string byte_range(const profile::HockneySegment& segment) {
  if (!std::isfinite(segment.to_bytes)) {
    return fmt::format("{} B and larger", shortest(segment.from_bytes));
  }
  return fmt::format("{} B to {} B", shortest(segment.from_bytes), shortest(segment.to_bytes));
}

std::string segment_list(const profile::PointToPoint& p2p) {
  std::string list;
  for (const profile::HockneySegment& s : p2p.segments) {
    list += fmt::format("{}{}: t0 {} s, r_inf {} B/s", list.empty() ? "" : "; ", byte_range(s),
                        shortest(s.t0.value), shortest(s.r_inf.value));
  }
  return list;
}

std::string describe(const profile::Quantity& quantity) {
  std::string text = profile::to_string(quantity.origin);
  if (quantity.interval) {
    const std::string what = quantity.interval->level >= 1
                                 ? std::string("range")
                                 : fmt::format("{}% interval", quantity.interval->level * 100);
    text += fmt::format(", {} {} .. {} {}", what, shortest(quantity.interval->low),
                        shortest(quantity.interval->high), quantity.unit);
  }
  return text;
}

}  // namespace sonde::exports::detail
