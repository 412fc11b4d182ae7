// Memory levels from a memory-suite run: the latency and bandwidth plateau of each cache level and
// of DRAM, each taken over the working sets that sit well inside the level (the capacities the
// latency probe sized, else hwloc's claims) and reported as the median over those sizes with its
// range; also the summary that `sonde characterize` prints.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace sonde::fit {

// A value over several working sets: the median of the per-size medians and their range. Only the
// sizes within 25% of the window's anchor count. For a cache the anchor is the fastest size: a
// cache smaller in effect than hwloc says (shared with other tenants) has its largest sizes at the
// next level's speed, and those are not its plateau. For DRAM, the slowest level, the anchor is
// the slowest size: a cache larger in effect than hwloc says (threads of a VM spread over several
// L3 slices) makes its smallest sizes faster, and those are not DRAM's plateau.
struct Plateau {
  double median = 0;
  double min = 0;
  double max = 0;
  std::size_t sizes = 0;               // working sets it was taken over
  std::size_t sizes_in_window = 0;     // of those in the window
  std::uint64_t flat_up_to_bytes = 0;  // the largest working set that was still on the plateau
  double worst_cv = 0;  // the largest coefficient of variation among their repetitions
};

// The tolerance of the plateau around the best value of a window.
inline constexpr double kPlateauBand = 1.25;

// The working sets that sit in one level for a given number of threads: from twice the capacity
// of the level inside it to half its own capacity (open-ended for DRAM).
struct LevelWindow {
  std::string level;                 // "L1d", "L2", "L3", "DRAM"
  std::uint64_t capacity_bytes = 0;  // what `threads` threads on distinct cores can use; 0 for DRAM
  std::uint64_t lo_bytes = 0;
  std::optional<std::uint64_t> hi_bytes;

  bool contains(std::uint64_t bytes) const {
    return bytes >= lo_bytes && (!hi_bytes || bytes <= *hi_bytes);
  }
};

// From the topology object of a run context (context.sonde.topology).
std::vector<LevelWindow> level_windows(const nlohmann::json& topology, unsigned threads);

// The run context's topology with the caches as the run sized them (context.sonde.sizing: the
// latency probe's capacities where they differ from hwloc's claims; levels the probe did not see
// removed); hwloc's topology unchanged for results without a sizing.
nlohmann::json sized_topology_json(const nlohmann::json& context);

struct LevelSummary {
  LevelWindow window;                              // the single-thread window
  std::map<std::string, Plateau> latency_seconds;  // by variant: "random.base", "in_page.base", ...
  std::map<std::string, Plateau> latency_cycles;
  std::map<std::string, Plateau> bytes_per_second;       // by "kernel/threads", e.g. "triad/2"
  std::map<std::string, LevelWindow> bandwidth_windows;  // the window each bandwidth entry used
};

// One point of the bandwidth sweep: `kernel` with `threads` threads over `bytes` in all, the
// median rate of its repetitions and their range.
struct SweepSample {
  std::string name;  // the benchmark
  std::string kernel;
  unsigned threads = 0;
  std::uint64_t bytes = 0;
  double median = 0, min = 0, max = 0;  // B/s
};

// A point in memory's window.
using DramBandwidthSample = SweepSample;

// A point between two caches' windows (above `level`'s, below `next`'s, both for `threads`
// threads): where the rate falls from one plateau to the other.
struct CacheEdgeSample : SweepSample {
  std::string level, next;
  std::uint64_t from_bytes = 0, to_bytes = 0;  // level's window top, next's window bottom
};

struct MemorySummary {
  std::string host;
  std::string cpu_model;
  std::string topology;
  std::optional<double> clock_hertz;
  std::string clock_source;
  std::vector<unsigned> thread_counts;
  std::vector<LevelSummary> levels;
  // Every point of the sweep in memory's window (beyond four times the last cache), which the
  // level's plateau summarizes by its slowest sizes.
  std::vector<DramBandwidthSample> dram_bandwidth;
  // Every point of the sweep between one cache's window and the next cache's.
  std::vector<CacheEdgeSample> cache_edges;
  std::size_t failed_benchmarks = 0;
};

// Throws an input Error naming the file when a result lacks what the summary needs.
MemorySummary summarize_memory(const std::vector<ResultFile>& files);
std::string format_memory_summary(const MemorySummary& summary);
nlohmann::json to_json(const MemorySummary& summary);

}  // namespace sonde::fit
