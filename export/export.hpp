// Exports of a machine profile (and of counter files) into the formats other tools read, so that a
// machine characterized once can be used in simulators and modelling tools without writing their
// input by hand. One file per format; each states in the file what it could not express.
//
//   roofline     the Empirical Roofline Toolkit's roofline.json (peak flop/s, bandwidth per level)
//   dimemas      a Dimemas configuration (.cfg): nodes, processors, speed ratio, latency, bandwidth
//   loggopsim    LogGOPSim's parameters L, o, g, G, O, S as its command line
//   extrap-text  Extra-P's text input, from a profile's collectives or from counter files
//   extrap-json  Extra-P's JSON input, from the same
//   simgrid      a SimGrid platform (XML) whose SMPI factors reproduce the Hockney segments
//
// The namespace is `exports`: `export` is a C++ keyword.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "counters/counter_file.hpp"
#include "profile/profile.hpp"

namespace sonde::exports {

// The format names `sonde export` takes, in the order its help lists them.
const std::vector<std::string>& formats();

// ---------------------------------------------------------------------------------------------
// Roofline: the Empirical Roofline Toolkit's roofline.json (empirical.gflops.data,
// empirical.gbytes.data, spec), values in GFLOP/s and GB/s (1e9).
struct Roofline {
  std::string flops_name;                              // "GFLOPs"
  double gflops = 0;                                   // 1e9 flop/s
  std::vector<std::pair<std::string, double>> gbytes;  // level, 1e9 B/s, from the core outwards
};
// An input Error naming `where` and the missing key when the profile has no peak rate or no
// memory level with a bandwidth.
std::string roofline_json(const profile::Profile& profile, const std::string& where);
Roofline read_roofline_json(const std::string& text, const std::string& where);

// ---------------------------------------------------------------------------------------------
// Dimemas: the records of a configuration file that sonde can fill, as read back.
struct DimemasConfig {
  std::string machine_name;
  int nodes = 0;
  int processors_per_node = 0;
  double speed_ratio = 0;                // relative processor speed (divisive factor)
  double intra_latency_seconds = 0;      // s
  double intra_bandwidth_mbps = 0;       // Dimemas' MBps: 2^20 B/s; 0 means instantaneous
  double inter_latency_seconds = 0;      // s
  double inter_bandwidth_mbps = 0;       // environment record, 2^20 B/s
  int intra_buses = 0, inter_buses = 0;  // 0: no limit
  int collective_model = 0;              // 1 constant, 2 linear, 3 logarithmic
};
// `reference`, where given, is the profile of the machine a trace was recorded on: the speed ratio
// is then this machine's peak rate per process over the reference's. An input Error naming `where`
// and the key when the profile lacks the nodes, the cores per node or a point-to-point fit.
std::string dimemas_cfg(const profile::Profile& profile, const std::string& where,
                        const profile::Profile* reference = nullptr,
                        const std::string& reference_where = "");
// Parses the records by Dimemas' grammar (a header line, "//" comment lines, /* */ blocks, records
// `"name" {fields};;` with the documented field counts); an input Error where it is not.
DimemasConfig read_dimemas_cfg(const std::string& text, const std::string& where);

// ---------------------------------------------------------------------------------------------
// LogGOPSim: its options as integers in the file's time unit.
struct LogGOPSimParameters {
  std::string time_unit;              // "ns" or "ps"
  std::map<char, long long> options;  // 'L', 'o', 'g', 'G', 'O', 'S' where given
};
std::string loggopsim_command(const profile::Profile& profile, const std::string& where);
LogGOPSimParameters read_loggopsim_command(const std::string& text, const std::string& where);

// ---------------------------------------------------------------------------------------------
// SimGrid: a platform file (XML 4.1) for SMPI: one cluster of the profile's nodes and cores per
// node at the peak rate, links and SMPI latency and bandwidth factors that reproduce the Hockney
// segments, the pair map's same-node class as the loopback. An input Error naming `where` and the
// key when the profile lacks a point-to-point fit or the cores per node.
std::string simgrid_platform(const profile::Profile& profile, const std::string& where);

// ---------------------------------------------------------------------------------------------
// Extra-P: measurements at points of the parameters, per callpath (region) and metric.
struct ExtrapPoint {
  std::vector<double> coordinates;  // one per parameter
  std::vector<double> values;       // repetitions
  bool operator==(const ExtrapPoint&) const = default;
};
struct ExtrapSeries {
  std::string callpath;
  std::string metric;
  std::vector<ExtrapPoint> points;
  bool operator==(const ExtrapSeries&) const = default;
};
struct ExtrapData {
  std::vector<std::string> parameters;
  std::vector<ExtrapSeries> series;
  std::vector<std::string> notes;  // what the data leaves out, written into the file
  std::string source;              // the file(s) it came from
  // What to do where a parameter has fewer than the five values Extra-P needs to model it; the
  // writers say so for the series they write.
  std::string more_values_advice;
};
// Collectives: parameters p (ranks) and m (bytes), one region per collective, metric time (s).
ExtrapData extrap_from_collectives(const profile::Profile& profile, const std::string& where);
// Counter files of pilot runs: parameters size and processes, one region per phase, metric time
// (the slowest processor's, s) and one metric per count (summed over the processors).
ExtrapData extrap_from_counters(const counters::CounterTable& table, const std::string& where);

std::string extrap_text(const ExtrapData& data);
std::string extrap_json(const ExtrapData& data);
// Read back by the documented grammar; comments and notes are not kept.
ExtrapData read_extrap_text(const std::string& text, const std::string& where);
ExtrapData read_extrap_json(const std::string& text, const std::string& where);

// ---------------------------------------------------------------------------------------------
// `sonde export <format> <input...> -o <file>`.
struct ExportArguments {
  std::string format;
  std::vector<std::string> inputs;  // one profile; or, for extrap-*, counter files
  std::string output;
  std::string reference;  // dimemas: the profile of the machine the trace was recorded on
};
// Writes the export atomically and prints one line saying where to `out`.
int export_command(const ExportArguments& arguments, std::ostream& out);

}  // namespace sonde::exports
