// `sonde replay`: a trace replayed on a machine profile, with the what-ifs of Shanmugam, Malony
// and Mohr's ExtraP (another processor, another process count) and of Eom and Hollingsworth's LBF
// and NF (another placement, another network).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "replay/engine.hpp"

namespace sonde::replay {

struct ReplayOptions {
  std::string trace;    // the OTF2 anchor file
  std::string machine;  // the target's profile
  // The profile of the machine the trace was taken on, for the speed ratio; default: the trace's
  // "machine" property's <name>.yaml beside --machine.
  std::string source_machine;
  std::optional<double> speed_ratio;  // given: used as it is
  // Per phase: "NAME=0.5", "NAME=peak" (the peaks' ratio), "NAME=memory" (the DRAM bandwidths'
  // ratio, per core at the most threads measured); needs the traced machine's profile for the
  // last two.
  std::vector<std::string> phase_ratios;
  std::string network;  // messages between nodes (or, on one node, all of them)
  std::optional<std::uint32_t> ranks_per_node;
  std::string placement;  // "block" (default), "round-robin", or a node per rank: "0,0,1,1"
  std::optional<std::uint32_t> processors_per_node;  // default: the profile's cores per node
  std::string messages = "fit";                      // "fit" or "table"
  double latency_scale = 1, bandwidth_scale = 1;
  bool extrap_barrier = false;
  bool wall_time = false;  // computation from wall time even where the trace has process time
  std::string json;        // write the result here (atomically); empty: none
  std::string plots;       // folder for timeline.{png,svg}; empty: none
};

struct ReplayReport {
  Result result;
  std::string target;  // the profile's machine name
  double speed_ratio = 1;
  std::string speed_ratio_how;
  std::uint32_t nodes = 1;
  std::uint32_t processors_per_node = 0;
  std::vector<std::string> notes;  // the costs' and the replay's
};

ReplayReport run_replay(const ReplayOptions& options);
void print_report(const ReplayOptions& options, const ReplayReport& report, std::ostream& out);
nlohmann::json to_json(const ReplayOptions& options, const ReplayReport& report);

}  // namespace sonde::replay
