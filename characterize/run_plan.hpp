// The plan of a `sonde characterize` run: which parts run with which sizes and effort, and how long
// each should take, fitted to the user's time budget before anything is measured.
//
// The estimate is a model of the harness, not a measurement: Google Benchmark runs a benchmark's
// first repetition after a short search for its iteration count and aims each repetition at about
// 1.4 times the minimum time; buffers are touched and chases linked once per benchmark (per
// repetition where the benchmark allocates inside its run). Each run's manifest records the
// estimate beside the time each part really took, so the model can be checked on every machine.
#pragma once

#include <string>
#include <vector>

#include "characterize/characterize.hpp"
#include "microbench/sizing.hpp"
#include "microbench/topology.hpp"

namespace sonde::characterize {

struct PartEstimate {
  std::string suite;
  std::string part;
  std::size_t benchmarks = 0;
  double seconds = 0;
};

struct RunPlan {
  microbench::Sizing sizing;
  std::vector<SuiteRun> suites;
  std::vector<PartEstimate> parts;  // in running order
  bool probe = false;               // the coarse latency probe runs first
  PartEstimate probe_estimate;
  double budget_seconds = 0;
  std::vector<std::string> efforts_tried;  // the effort names that did not fit, in order

  double total_seconds() const;
  bool fits() const { return total_seconds() <= budget_seconds; }
};

// The efforts the budget chooses from, most thorough first.
std::vector<microbench::Effort> effort_ladder();

// Estimated seconds of one benchmark from its parameters, repetitions and time per repetition.
double estimate_benchmark_seconds(const nlohmann::json& params, int repetitions,
                                  double min_time_seconds);

// Plans the selected suites on `topology` (hwloc's) with `sizing`'s capacities at each effort of
// the ladder in turn and keeps the first whose estimate fits `budget_seconds`; when none fits, the
// least effort, with fits() false. The probe's estimate counts when `probe` is true.
RunPlan plan_run(const SuiteSelection& selection, const microbench::Topology& topology,
                 const microbench::Sizing& sizing, double budget_seconds, bool probe);

// Plans at exactly the sizing's effort (a resumed run keeps the one it started with).
RunPlan plan_run_at_effort(const SuiteSelection& selection, const microbench::Topology& topology,
                           const microbench::Sizing& sizing, double budget_seconds, bool probe);

// The plan as a person reads it: memory, caches (hwloc's and sized), each part with its
// benchmarks and estimated time, the notes, the total against the budget.
std::string format_plan(const RunPlan& plan, const microbench::Topology& topology);

// "4m05s", "12s", "1h02m"
std::string format_duration(double seconds);

// The ranks a launcher line starts (-n, -np, --np, --ntasks); nullopt when it does not say.
std::optional<int> launcher_ranks(const std::vector<std::string>& launcher);

}  // namespace sonde::characterize
