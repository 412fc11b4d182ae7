// From a run's raw results to a machine profile: every suite that ran is fitted into its section
// (compute, memory levels with their capacities checked against hwloc, Amato et al.'s (1999)
// contention parameters, overheads, Hockney point-to-point, collective forms in n), every value
// with its unit, spread, sources and origin; what could not be fitted is listed with the reason.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "core/run_records.hpp"
#include "profile/profile.hpp"

namespace sonde::fit {

// One step of the latency curve between two levels: where the latency leaves the smaller
// level's plateau. `bytes` and `seconds` are the curve (working set, median latency), sorted by
// size; the capacity is where the curve crosses the geometric mean of the two plateaus,
// interpolated in log-log between the two sizes around it (the interval).
struct CapacityStep {
  double bytes = 0;
  double low = 0, high = 0;
};
std::optional<CapacityStep> detect_capacity(const std::vector<double>& bytes,
                                            const std::vector<double>& seconds,
                                            double inner_plateau, double outer_plateau);

// SHA-256 over the files' names and contents, in name order (the profile's results digest).
// The MPI suite's pair map summarized by placement (same-core .. other-node), nearest first.
std::vector<profile::PairClass> pair_classes(const std::vector<Measurement>& rows);

std::string results_digest(const std::vector<std::filesystem::path>& files);

// Throws an input Error naming the file when a result lacks what a section needs.
profile::Profile build_profile(const RunRecords& run, const std::string& machine_name,
                               const std::filesystem::path& run_folder);

}  // namespace sonde::fit
