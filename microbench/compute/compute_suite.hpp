// The compute suite: peak floating-point rate with each fused multiply-add unit the CPU has, one
// thread and all cores; and the kernel library, latency and throughput of single operations.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"
#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

struct ComputeSuitePlan {
  std::vector<std::string> parts;
  std::vector<unsigned> thread_counts;
  std::vector<std::string> units;
  int repetitions = 0;
  double min_time_seconds = 0;
};

std::vector<std::string> compute_part_names();
ComputeSuitePlan plan_compute_suite(const CommonOptions& options, const Topology& topology,
                                    const Sizing& sizing);
void register_compute_suite(const ComputeSuitePlan& plan, const Topology& topology,
                            const std::optional<CoreClock>& clock, ParamRegistry& registry);
nlohmann::json to_json(const ComputeSuitePlan& plan);

}  // namespace sonde::microbench
