// LogGOPSim's parameters as its command line. The options and their meaning come from
// src/LogGOPSim/loggopsim_cmdline.ggo of github.com/spcl/LogGOPSim (-L latency, -o overhead,
// -g gap per message, -G gap per byte, -O overhead per byte, -S the size up to which messages go
// eager; all integers, defaults L 2500, o 1500, g 1000, G 6, O 0, S 65535) and from
// src/LogGOPSim/LogGOPSim.cpp (a message of s bytes costs o + L + (s - 1) G + o; size <= S is
// eager; times are in the unit of the schedule, nanoseconds by Schedgen's default --timemult).
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "export/common.hpp"
#include "export/export.hpp"

namespace sonde::exports {

namespace {

long long whole(double value, char option, const std::string& where) {
  const double rounded = std::round(value);
  if (!std::isfinite(rounded) || rounded > INT_MAX || rounded < 0) {
    throw input_error(where, fmt::format("LogGOPSim's -{} is an int: {} does not fit", option,
                                         detail::shortest(value)));
  }
  return static_cast<long long>(rounded);
}

}  // namespace

std::string loggopsim_command(const profile::Profile& profile, const std::string& where) {
  const profile::PointToPoint& p2p = profile::require_point_to_point(profile, where);
  if (p2p.segments.empty()) {
    throw input_error(where,
                      "point_to_point.segments: empty; LogGOPSim's L and G come from the "
                      "Hockney fit");
  }
  const profile::HockneySegment& first = p2p.segments.front();
  const profile::HockneySegment& last = p2p.segments.back();
  const double seconds_per_byte = 1.0 / last.r_inf.value;

  // LogGOPSim takes integers: nanoseconds lose G on a network faster than 1 GB/s (G would round
  // to 0 or 1), so picoseconds are taken where G in ns is below 10.
  const bool picoseconds = seconds_per_byte * 1e9 < 10;
  const double per_second = picoseconds ? 1e12 : 1e9;
  const std::string unit = picoseconds ? "ps" : "ns";

  std::vector<std::pair<char, long long>> options;
  std::vector<std::string> comments, not_expressed;
  comments.push_back(fmt::format("LogGOPSim parameters of {}, exported by sonde from {}.",
                                 profile.machine.name, where));
  comments.push_back(
      "Options: src/LogGOPSim/loggopsim_cmdline.ggo of github.com/spcl/LogGOPSim; a message of s "
      "bytes costs o + L + (s - 1) G + o there.");
  comments.push_back(
      picoseconds
          ? "time unit: ps (picoseconds), since G is below 10 ns per byte and LogGOPSim takes "
            "integers. The schedule must be in ps too: schedgen --timemult 1000000."
          : "time unit: ns (nanoseconds), the unit of Schedgen's default --timemult 1000.");

  const long long L = whole(first.t0.value * per_second, 'L', where);
  options.emplace_back('L', L);
  comments.push_back(fmt::format(
      "-L {}: Hockney t0 of the first point-to-point segment ({}), {} s, {}; the one-way "
      "start-up of a message as measured end to end, both overheads included.",
      L, detail::byte_range(first), detail::shortest(first.t0.value), detail::describe(first.t0)));
  options.emplace_back('o', 0);
  comments.push_back(
      "-o 0: the CPU overhead per message was not measured apart from the latency (sonde's "
      "ping-pong times the whole message); it is held in L, and given as 0 so that LogGOPSim "
      "does not add its default 1500 on top of the measured t0.");
  const long long G = whole(seconds_per_byte * per_second, 'G', where);
  options.emplace_back('G', G);
  comments.push_back(fmt::format(
      "-G {}: 1 / r_inf of the last segment ({}), r_inf = {} B/s, {}; rounded to a whole {} "
      "per byte (unrounded: {}).",
      G, detail::byte_range(last), detail::shortest(last.r_inf.value), detail::describe(last.r_inf),
      unit, detail::shortest(seconds_per_byte * per_second)));
  options.emplace_back('O', 0);
  comments.push_back(
      "-O 0: the CPU overhead per byte was not measured apart from the bandwidth; it is held in "
      "G (LogGOPSim charges max(O, G) per byte at the receiver).");
  if (p2p.segments.size() > 1) {
    const profile::HockneySegment& eager = p2p.segments[p2p.segments.size() - 2];
    const long long S = whole(std::floor(eager.to_bytes), 'S', where);
    options.emplace_back('S', S);
    comments.push_back(fmt::format(
        "-S {}: the protocol breakpoint, the largest message of the segment before the last "
        "({} B); the last segment starts at {} B, so the switch lies between the two sizes "
        "measured.",
        S, detail::shortest(eager.to_bytes), detail::shortest(last.from_bytes)));
    const std::string segments = detail::segment_list(p2p);
    not_expressed.push_back(fmt::format(
        "the other segments: LogGOPSim has one L, one G and one breakpoint S; the profile has {} "
        "segments: {}. Above S LogGOPSim simulates the rendezvous handshake itself.",
        p2p.segments.size(), segments));
  } else {
    not_expressed.push_back(
        "-S: no protocol breakpoint was measured (one Hockney segment): left out, so LogGOPSim "
        "uses its default 65535 B; give -S yourself if the library switches protocols.");
  }
  // g: the time per message of the smallest unidirectional stream, where the profile has one.
  const profile::StreamingMeasurement* stream = nullptr;
  for (const profile::StreamingMeasurement& m : p2p.streaming) {
    if (m.direction == "unidirectional" && (!stream || m.bytes < stream->bytes)) stream = &m;
  }
  if (stream) {
    const long long g = whole(stream->seconds_per_message.value * per_second, 'g', where);
    options.emplace_back('g', g);
    comments.push_back(fmt::format(
        "-g {}: the gap per message, the time per message of a unidirectional stream of {} B "
        "messages sent back to back (point_to_point.streaming), {} s, {}; the inverse of the "
        "message rate.",
        g, detail::shortest(stream->bytes), detail::shortest(stream->seconds_per_message.value),
        detail::describe(stream->seconds_per_message)));
  } else {
    not_expressed.push_back(
        "-g: the gap per message (the inverse of the message rate) was not measured (the profile "
        "has no point_to_point.streaming): left out, so LogGOPSim uses its default 1000 in the "
        "time unit above; give -g yourself.");
  }
  not_expressed.push_back(
      "intervals of L and G (LogGOPSim takes single values), the collectives (LogGOPSim "
      "simulates them from their schedules) and congestion (network-type LogGP).");

  // The options in LogGOPSim's own order, L o g G O S.
  const std::string order = "LogGOS";
  std::stable_sort(options.begin(), options.end(), [&](const auto& a, const auto& b) {
    return order.find(a.first) < order.find(b.first);
  });
  std::ostringstream out;
  out << detail::comment_header("# ", comments, not_expressed);
  out << "# Run with the schedule: sh <this file> -f <schedule.bin>\n";
  out << "LogGOPSim";
  for (const auto& [option, value] : options) out << fmt::format(" -{} {}", option, value);
  out << " \"$@\"\n";
  return out.str();
}

LogGOPSimParameters read_loggopsim_command(const std::string& text, const std::string& where) {
  LogGOPSimParameters parameters;
  std::istringstream lines(text);
  std::string line;
  int commands = 0;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string place = fmt::format("{}:{}", where, number);
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::string marker = "# time unit: ";
      if (line.rfind(marker, 0) == 0) parameters.time_unit = line.substr(marker.size(), 2);
      continue;
    }
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word != "LogGOPSim") throw input_error(place, "expected a comment or the LogGOPSim line");
    ++commands;
    while (words >> word) {
      if (word == "\"$@\"") continue;
      if (word.size() != 2 || word[0] != '-' ||
          std::string("LogGOS").find(word[1]) == std::string::npos) {
        throw input_error(place, "unknown option '" + word + "'; expected -L -o -g -G -O -S");
      }
      std::string value;
      if (!(words >> value) || value.find_first_not_of("0123456789") != std::string::npos) {
        throw input_error(place, word + " needs a non-negative integer");
      }
      if (!parameters.options.emplace(word[1], std::stoll(value)).second) {
        throw input_error(place, word + " given twice");
      }
    }
  }
  if (commands != 1) throw input_error(where, "expected one LogGOPSim command line");
  if (parameters.time_unit != "ns" && parameters.time_unit != "ps") {
    throw input_error(where, "expected a '# time unit: ns' or '# time unit: ps' comment");
  }
  return parameters;
}

}  // namespace sonde::exports
