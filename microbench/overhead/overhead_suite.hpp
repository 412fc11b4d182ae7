// The overhead suite: what parallelism and interaction operations cost on this machine (Xu and
// Hwang (1995), section 2.3, Tables 2 and 3): process creation, thread creation, context switch,
// pipe latency and bandwidth, mutex lock and unlock, thread barrier, atomic update by all threads
// on one word.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"
#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/suite_program.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

struct OverheadSuitePlan {
  std::vector<std::string> parts;
  std::vector<std::string> skipped_parts;
  std::vector<unsigned> thread_counts;  // for the synchronization benchmarks
  std::uint64_t pipe_message_bytes = 0;
  int repetitions = 0;
  double min_time_seconds = 0;
  double pipe_min_time_seconds = 0;
  bool two_cores = false;  // pipe latency and bandwidth need a second core
};

std::vector<std::string> overhead_part_names();
OverheadSuitePlan plan_overhead_suite(const CommonOptions& options, const Topology& topology,
                                      const Sizing& sizing);
void register_overhead_suite(const OverheadSuitePlan& plan, const Topology& topology,
                             const std::optional<CoreClock>& clock, ParamRegistry& registry);
nlohmann::json to_json(const OverheadSuitePlan& plan);

}  // namespace sonde::microbench
