// The contention suite (Amato et al. (1999), section 3 and Table 1, brought to today's machines): p
// threads loading or storing every s-th word of sub-arrays sized for one level of the hierarchy,
// each on its own (exclusive) or all on one (concurrent); all threads on one word (QSM's K term);
// false sharing against padded words; and loads of data that sits clean, shared or dirty in another
// core's cache (section 5.1); and on machines with several NUMA nodes, a core's loads from its
// own node's memory against every other node's.
#pragma once

#include <nlohmann/json.hpp>

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

// One of Amato et al.'s (1999) access experiments.
struct AccessExperiment {
  unsigned threads = 1;
  unsigned stride_words = 1;
  std::string level;  // "l1", "l2", "l3", "dram": the level the sub-arrays are sized for
  bool store = false;
  bool concurrent = false;
};

// Amato et al.'s (1999) mnemonic with the level in place of the bank-contention field:
// "p2.s32.l2.SC".
std::string experiment_code(const AccessExperiment& experiment);

// The bytes of one sub-array for `level` with `threads` threads: half of a private cache level;
// for the last level, half of what the threads' share of it holds; for DRAM `dram_bytes` (the
// sizing's: beyond the last level, within the memory this process may use), split among the
// threads when each has its own.
std::uint64_t sub_array_bytes(const Topology& topology, const std::string& level, unsigned threads,
                              bool concurrent, std::uint64_t dram_bytes);

struct ContentionSuitePlan {
  std::vector<std::string> parts;
  std::vector<std::string> skipped_parts;
  std::vector<unsigned> thread_counts;
  std::vector<unsigned> strides;
  std::vector<std::string> levels;
  unsigned numa_nodes = 1;
  std::uint64_t numa_bytes = 0;  // the working set of the NUMA experiments
  std::uint64_t dram_bytes = 0;  // all threads' "dram" sub-arrays together
  int repetitions = 0;
  double min_time_seconds = 0;
};

std::vector<std::string> contention_part_names();
ContentionSuitePlan plan_contention_suite(const CommonOptions& options, const Topology& topology,
                                          const Sizing& sizing);
void register_contention_suite(const ContentionSuitePlan& plan, const Topology& topology,
                               const std::optional<CoreClock>& clock, ParamRegistry& registry);
nlohmann::json to_json(const ContentionSuitePlan& plan);

}  // namespace sonde::microbench
