// Helpers the exporters share: numbers as each grammar allows them, comments wrapped to a width.
#pragma once

#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace sonde::exports::detail {

// The shortest text that reads back to the same double (may use an exponent: "4.43e-07").
std::string shortest(double value);
// Fixed notation, no exponent, 17 significant digits with trailing zeros dropped: reads back to
// the same double, for grammars whose numbers have no exponent (Extra-P's text format).
std::string fixed_decimal(double value);
// `text` wrapped into lines of at most `width` characters: the first starts with `prefix` ("# ",
// "// - "), the others with its comment leader and indented under the text.
std::vector<std::string> wrap(const std::string& prefix, const std::string& text,
                              std::size_t width = 100);
// A file's header: each comment wrapped behind `leader` ("# ", "// "), then "Not expressed:" and
// each item as a list entry; every line ends in a newline.
std::string comment_header(const std::string& leader, const std::vector<std::string>& comments,
                           const std::vector<std::string>& not_expressed);
// "0 B to 256 B", or "4096 B and larger" for the open last segment.
std::string byte_range(const profile::HockneySegment& segment);
// Every segment: "0 B to 256 B: t0 4.4e-07 s, r_inf 2.9e+09 B/s; 304 B to ...".
std::string segment_list(const profile::PointToPoint& p2p);
// "fitted, 95% interval 1.2e-07 .. 1.4e-07 s" for a comment.
std::string describe(const profile::Quantity& quantity);

}  // namespace sonde::exports::detail
