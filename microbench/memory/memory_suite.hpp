// The memory-hierarchy suite: load-to-use latency by pointer chase (three page variants),
// streaming bandwidth (read, write, copy, triad, update) and a sparse product's (indexed) with one
// thread and with one bound thread per core, and Amato et al.'s (1999) stride sweep. Sizes come
// from the detected caches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"
#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

struct MemorySuiteOptions {
  CommonOptions common;  // quick, repetitions (5), min time (0.03 s), parts
  std::string min_working_set = "4KiB";
  std::string max_working_set;       // empty: the sizing's sweep (8 times the last level)
  std::vector<std::string> sizes;    // exact working sets instead of the sweep
  std::vector<std::string> threads;  // thread counts, "all" for every core; empty: 1 and all
  std::uint64_t seed = 20261121;     // for the chase permutations
};

// The suite's options (added to a command line by add_memory_options, suite_options.hpp) as
// arguments again, to hand them to the benchmark program.
std::vector<std::string> memory_option_arguments(const MemorySuiteOptions& options);

// The options checked against the machine and made concrete.
struct MemorySuitePlan {
  std::vector<std::uint64_t> working_sets;  // the latency and bandwidth sweep
  // The latency parts stop here: a thread reaches one instance of the last level, so eight times
  // that instance shows memory's plateau; linking chases of the whole sweep's largest sizes would
  // take minutes on a machine with many last-level instances.
  std::uint64_t latency_max_bytes = 0;
  std::vector<unsigned> thread_counts;
  std::vector<unsigned> strides;  // of the stride experiment, in words
  unsigned line_bytes = 0;
  std::string line_bytes_source;
  int repetitions = 0;
  double min_time_seconds = 0;
  bool huge_pages = false;
  std::vector<std::string> parts;                 // the selected parts that can run here
  std::vector<std::string> skipped_parts;         // "part: reason"
  std::vector<std::uint64_t> probe_working_sets;  // the coarse latency probe (part "probe")
  std::uint64_t dram_bytes = 0;                   // the stride experiment's "dram" sub-array
  std::uint64_t seed = 0;
  bool quick = false;
  bool update_kernel = true;   // the effort's choice (Effort::update_kernel)
  bool indexed_kernel = true;  // the effort's choice (Effort::indexed_kernel)
  bool stencil_kernel = true;  // the effort's choice (Effort::stencil_kernel)
};

// Throws a usage Error naming the option for a working set below one cache line, more threads
// than cores, an unknown part, a size beyond half the memory this process may use. Default sizes
// come from `sizing` (and the sized `topology`) and are never refused. The part "probe", the
// coarse latency sweep `sonde characterize` runs first, runs only when asked for by name.
MemorySuitePlan plan_memory_suite(const MemorySuiteOptions& options, const Topology& topology,
                                  const Sizing& sizing);

// Every part the suite can have on this machine with these options, in running order.
std::vector<std::string> memory_part_names(const MemorySuitePlan& plan);

// Registers the benchmarks of the plan's parts with Google Benchmark and their parameters in
// `registry`; returns how many.
std::size_t register_memory_suite(const MemorySuitePlan& plan, const Topology& topology,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry);

nlohmann::json to_json(const MemorySuitePlan& plan);

}  // namespace sonde::microbench
