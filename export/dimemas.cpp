// A Dimemas configuration file. The records and their fields come from Dimemas' own reader,
// Simulator/input/new_configuration.c (record patterns `"<name>" {<fields>};;`, the field lists
// of "environment information" (7), "multi node information" (14), "predefined mapping
// information", "configuration files" (4); "//" lines are comments, "/*" .. "*/" a block, the
// first line a header), and from the record definitions in cfgs/ideal.cfg (units: latency in
// seconds, bandwidth in MBps), both in github.com/bsc-performance-tools/dimemas. Dimemas' MB is
// 2^20 bytes: Simulator/model/communic.c turns MBps into ns per byte as 1e9 / (1 << 20) / MBps.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "export/common.hpp"
#include "export/export.hpp"

namespace sonde::exports {

namespace {

constexpr double kMebibyte = 1048576.0;

// A string field is read with sscanf's %[^,] and the record ends at the first '}': no commas,
// braces or quotes inside, and no '/' (a "//" or "/*" would read as a comment).
std::string field_text(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    const bool bad = c == ',' || c == '{' || c == '}' || c == '"' || c == ';' || c == '/';
    quoted += bad ? ' ' : c;
  }
  quoted += '"';
  return quoted;
}

// Dimemas reads doubles with %lf: an exponent is fine, but "1" and "1.0" are both doubles.
std::string real(double value) {
  std::string text = detail::shortest(value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// Dimemas' collective model of the internal network (1 constant, 2 linear, 3 logarithmic) from
// the growth of the profile's broadcast form in n; nullopt without a form.
std::optional<int> collective_model(const profile::Profile& profile, std::string& why) {
  const auto found = profile.collectives.find("broadcast");
  if (found == profile.collectives.end() || !found->second.has_forms()) return std::nullopt;
  // The fastest-growing term decides: linear (n, n log n, n^c) over logarithmic over constant.
  bool linear = false, logarithmic = false;
  for (const profile::Term& term : found->second.t0.terms) {
    logarithmic = logarithmic || term.basis == "log n";
    linear = linear || term.basis == "n" || term.basis == "n log n" || term.basis == "n^c";
  }
  const int model = linear ? 2 : logarithmic ? 3 : 1;
  why = "from the basis of collectives.broadcast.t0 (" + found->second.t0.text(1e6) + " us)";
  return model;
}

}  // namespace

std::string dimemas_cfg(const profile::Profile& profile, const std::string& where,
                        const profile::Profile* reference, const std::string& reference_where) {
  if (!profile.machine.nodes) {
    throw input_error(where, "machine.nodes: absent; a Dimemas configuration needs the nodes");
  }
  if (!profile.machine.cores_per_node) {
    throw input_error(where,
                      "machine.cores_per_node: absent; a Dimemas configuration needs the "
                      "processors per node");
  }
  const profile::PointToPoint& p2p = profile::require_point_to_point(profile, where);
  if (p2p.segments.empty()) {
    throw input_error(where,
                      "point_to_point.segments: empty; Dimemas needs a latency and a "
                      "bandwidth");
  }
  const auto nodes = *profile.machine.nodes;
  const auto cores = *profile.machine.cores_per_node;
  const profile::HockneySegment& first = p2p.segments.front();
  const profile::HockneySegment& last = p2p.segments.back();

  std::vector<std::string> comments, not_expressed;
  comments.push_back(fmt::format("Dimemas configuration of {}, exported by sonde from {}.",
                                 profile.machine.name, where));
  comments.push_back(
      "Grammar: Dimemas' Simulator/input/new_configuration.c and cfgs/ideal.cfg "
      "(github.com/bsc-performance-tools/dimemas). Latencies in s, bandwidths in MBps (1 MB = "
      "2^20 B, as Dimemas converts them).");

  double speed_ratio = 1.0;
  if (reference) {
    const profile::Quantity& mine = profile::require_peak_flops(profile, where);
    const profile::Quantity& theirs = profile::require_peak_flops(*reference, reference_where);
    speed_ratio = mine.value / theirs.value;
    comments.push_back(fmt::format(
        "relative processor speed {}: this machine's peak rate per process ({} flop/s) over that "
        "of {} ({} flop/s), the machine the trace was recorded on; Dimemas divides the trace's "
        "CPU bursts by it. Peak rates only: a program bound by memory or latency scales "
        "otherwise.",
        real(speed_ratio), detail::shortest(mine.value), reference_where,
        detail::shortest(theirs.value)));
  } else {
    comments.push_back(
        "relative processor speed 1.0: the trace is taken to be recorded on this machine (give "
        "`sonde export dimemas --reference <profile of the tracing machine>` for the ratio of "
        "the peak rates).");
  }

  const double latency = first.t0.value;
  const double bandwidth_mbps = last.r_inf.value / kMebibyte;
  const std::string latency_text =
      fmt::format("latency {} s: Hockney t0 of the first point-to-point segment ({}; {})",
                  real(latency), detail::byte_range(first), detail::describe(first.t0));
  const std::string bandwidth_text = fmt::format(
      "bandwidth {} MBps: Hockney r_inf of the last segment ({}; {} B/s, {})", real(bandwidth_mbps),
      detail::byte_range(last), detail::shortest(last.r_inf.value), detail::describe(last.r_inf));

  double intra_latency = 0, intra_bandwidth = 0, inter_latency = 0, inter_bandwidth = 0;
  if (nodes == 1) {
    intra_latency = latency;
    intra_bandwidth = bandwidth_mbps;
    comments.push_back("intra-node " + latency_text + ".");
    comments.push_back("intra-node " + bandwidth_text + ".");
    not_expressed.push_back(
        "inter-node latency and bandwidth: not measured (the profile has one node); written as 0 "
        "(Dimemas: instantaneous), which no task uses while the tasks stay on the one node.");
  } else if (cores == 1) {
    inter_latency = latency;
    inter_bandwidth = bandwidth_mbps;
    comments.push_back("inter-node " + latency_text + ".");
    comments.push_back("inter-node " + bandwidth_text + ".");
    not_expressed.push_back(
        "intra-node latency and bandwidth: not measured (one processor per node); written as 0 "
        "(Dimemas: instantaneous), which no pair of tasks uses at one task per node.");
  } else {
    inter_latency = latency;
    inter_bandwidth = bandwidth_mbps;
    comments.push_back("inter-node " + latency_text +
                       ", taken as inter-node: the profile does not record where the two ranks "
                       "of its ping-pong (rank 0 and the last rank) ran; on a run over several "
                       "nodes they are on different nodes.");
    comments.push_back("inter-node " + bandwidth_text + ".");
    not_expressed.push_back(
        "intra-node latency and bandwidth: NOT MEASURED (the profile's one point-to-point fit is "
        "taken as inter-node); written as 0, which Dimemas reads as instantaneous: set fields 6 "
        "and 7 of the multi node record by hand before simulating tasks that share a node.");
  }
  if (p2p.segments.size() > 1) {
    const std::string segments = detail::segment_list(p2p);
    not_expressed.push_back(fmt::format(
        "the protocol segments: Dimemas has one latency and one bandwidth, the profile {} "
        "segments: {}.",
        p2p.segments.size(), segments));
  }

  std::string model_why;
  const std::optional<int> model = collective_model(profile, model_why);
  if (model) {
    comments.push_back(fmt::format("collective model {} ({}) {}.", *model,
                                   *model == 3   ? "logarithmic"
                                   : *model == 2 ? "linear"
                                                 : "constant",
                                   model_why));
  } else {
    not_expressed.push_back(
        "the collective model: no form in n of the broadcast was fitted; written as 1 "
        "(constant), as Dimemas' cfgs/ideal.cfg has it. The collectives' own costs would go in a "
        "communications fine-tuning file, which sonde does not write.");
  }
  not_expressed.push_back(
      "buses (concurrent messages): not measured; written as 0 (no limit), so no contention is "
      "simulated. Links: 1 in and 0 out within a node (one half-duplex link), 1 in and 1 out "
      "between nodes, as Dimemas' cfgs/ideal.cfg has them.");
  not_expressed.push_back(
      "the wide-area network (one machine), the file system (no record: sonde measures no disks) "
      "and the task mapping (FILL_NODES: change it for another placement).");
  not_expressed.push_back(
      "intervals of the measured values (Dimemas takes single values), the memory hierarchy, "
      "the kernel library and the overheads.");

  std::ostringstream out;
  out << "#DIMEMAS_CONFIGURATION\n";
  out << detail::comment_header("// ", comments, not_expressed);
  out << "\n";
  const std::string name = field_text(profile.machine.name);
  out << "\"wide area network information\" {\"\", 1, 0, 4, 0.0, 0.0, 1};;\n\n";
  out << fmt::format("\"environment information\" {{{}, 0, \"\", {}, {}, 0, {}}};;\n\n", name,
                     nodes, real(inter_bandwidth), model.value_or(1));
  out << fmt::format(
      "\"multi node information\" {{0, {}, {}, {}, {}, {}, {}, 0, 1, 0, {}, 1, 1, 0.0}};;\n\n",
      nodes, name, cores, real(speed_ratio), real(intra_latency), real(intra_bandwidth),
      real(inter_latency));
  out << "\"predefined mapping information\" {\"FILL_NODES\"};;\n\n";
  out << "\"configuration files\" {\"\", \"\", \"\", \"\"};;\n";
  return out.str();
}

namespace {

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : text) {
    if (c == ',') {
      fields.push_back(trim(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(trim(field));
  return fields;
}

}  // namespace

DimemasConfig read_dimemas_cfg(const std::string& text, const std::string& where) {
  static const std::map<std::string, std::vector<std::size_t>> field_counts = {
      {"wide area network information", {7}},
      {"environment information", {7}},
      {"node information", {13, 14}},
      {"multi node information", {14}},
      {"predefined mapping information", {1, 2}},
      {"configuration files", {4}},
      {"file system parameters", {5}},
      {"modules information", {3}}};
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  if (trim(line) != "#DIMEMAS_CONFIGURATION" && trim(line) != "SDDFA") {
    throw input_error(where + ":1", "expected the header #DIMEMAS_CONFIGURATION or SDDFA");
  }
  DimemasConfig config;
  bool environment = false, multi_node = false, in_block = false;
  for (int number = 2; std::getline(lines, line); ++number) {
    const std::string place = fmt::format("{}:{}", where, number);
    const std::string record = trim(line);
    if (record.empty() || record.find("//") != std::string::npos) continue;
    if (record.find("/*") != std::string::npos) {
      in_block = true;
      continue;
    }
    if (record.find("*/") != std::string::npos) {
      in_block = false;
      continue;
    }
    if (in_block) continue;
    if (record.front() != '"') throw input_error(place, "a record must start with its quoted name");
    const auto name_end = record.find('"', 1);
    const auto open = record.find('{');
    const auto close = record.find('}');
    if (name_end == std::string::npos || open == std::string::npos || close == std::string::npos ||
        open < name_end || close < open || record.substr(close) != "};;") {
      throw input_error(place, "expected \"<name>\" {<fields>};;");
    }
    const std::string name = record.substr(1, name_end - 1);
    const auto counts = field_counts.find(name);
    if (counts == field_counts.end()) throw input_error(place, "unknown record '" + name + "'");
    const std::vector<std::string> fields = split_fields(record.substr(open + 1, close - open - 1));
    if (std::find(counts->second.begin(), counts->second.end(), fields.size()) ==
        counts->second.end()) {
      throw input_error(place, fmt::format("record '{}' has {} fields; Dimemas reads {}", name,
                                           fields.size(), fmt::join(counts->second, " or ")));
    }
    const auto number_at = [&](std::size_t i) {
      try {
        std::size_t used = 0;
        const double value = std::stod(fields[i], &used);
        if (used != fields[i].size()) throw std::invalid_argument(fields[i]);
        return value;
      } catch (const std::exception&) {
        throw input_error(
            place, fmt::format("field {} of '{}': '{}' is not a number", i + 1, name, fields[i]));
      }
    };
    const auto integer_at = [&](std::size_t i) {
      const double value = number_at(i);
      if (value != std::floor(value) || fields[i].find_first_of(".e") != std::string::npos) {
        throw input_error(
            place, fmt::format("field {} of '{}': '{}' is not an integer", i + 1, name, fields[i]));
      }
      return static_cast<int>(value);
    };
    const auto string_at = [&](std::size_t i) {
      const std::string& field = fields[i];
      if (field.size() < 2 || field.front() != '"' || field.back() != '"') {
        throw input_error(place,
                          fmt::format("field {} of '{}': a string must be quoted", i + 1, name));
      }
      return trim(field.substr(1, field.size() - 2));
    };
    if (name == "environment information") {
      config.machine_name = string_at(0);
      integer_at(1);
      string_at(2);
      config.nodes = integer_at(3);
      config.inter_bandwidth_mbps = number_at(4);
      config.inter_buses = integer_at(5);
      config.collective_model = integer_at(6);
      environment = true;
    } else if (name == "multi node information") {
      integer_at(0);
      if (integer_at(1) != config.nodes) {
        throw input_error(place,
                          "the multi node record's node count differs from the "
                          "environment's");
      }
      string_at(2);
      config.processors_per_node = integer_at(3);
      config.speed_ratio = number_at(4);
      config.intra_latency_seconds = number_at(5);
      config.intra_bandwidth_mbps = number_at(6);
      config.intra_buses = integer_at(7);
      integer_at(8);
      integer_at(9);
      config.inter_latency_seconds = number_at(10);
      integer_at(11);
      integer_at(12);
      number_at(13);
      multi_node = true;
    } else if (name == "wide area network information") {
      string_at(0);
      for (std::size_t i : {1, 2, 3, 6}) integer_at(i);
      number_at(4);
      number_at(5);
    } else if (name == "configuration files") {
      for (std::size_t i = 0; i < 4; ++i) string_at(i);
    } else if (name == "predefined mapping information") {
      for (std::size_t i = 0; i < fields.size(); ++i) string_at(i);
    }
  }
  if (!environment || !multi_node) {
    throw input_error(where,
                      "expected an environment information and a multi node information "
                      "record");
  }
  return config;
}

}  // namespace sonde::exports
