// How big and how much: the sizes and the effort every suite plans with, decided once per run.
//
// hwloc's claims are a starting point, not a fact: a VM can report an L3 of 508 MiB per core and
// a NUMA node smaller than the memory the OS has. So the sizes come from the memory the process may
// really use (memory_limits.hpp) and, when `sonde characterize` runs, from a short coarse latency
// probe that finds where the latency really steps. Each benchmark program reads the run's sizing
// (--sizing FILE) or, run alone, makes the default one from hwloc clamped to usable memory.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "microbench/memory_limits.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

// One data-cache level as the suites size for it.
struct LevelCapacity {
  int depth = 0;
  std::string name;                          // "L1d", "L2", "L3"
  std::uint64_t hwloc_bytes = 0;             // per instance, as hwloc claims it
  std::optional<std::uint64_t> probe_bytes;  // where the probe saw the latency leave this level
  std::uint64_t bytes = 0;                   // what the suites size for (per instance)
  std::string source;                        // "hwloc", "probe", or "hwloc, beyond the probe"
  bool seen = true;  // false: inside the probed range but no step the data could match to it
};

// How much each suite measures: what the time budget trims.
struct Effort {
  std::string name = "full";
  int repetitions = 5;
  double min_time_scale = 1.0;         // of each suite's default time per repetition
  double points_per_octave = 2;        // memory sweep, over the whole range
  double dense_points_per_octave = 8;  // memory sweep, around each capacity
  std::vector<unsigned> strides;       // contention and stride experiments; empty: 1, 2, ..., 256
  unsigned max_thread_counts = 0;      // contention and overhead thread counts kept; 0: all
  double sweep_beyond_last_level = 8;  // memory sweep up to this times the last level
  double dram_beyond_last_level = 4;   // "dram" working sets: this times the last level
  // The memory suite's update-in-place bandwidth kernel; left out at the least effort, where a
  // budget forces it (spreadsheets that price traffic as 'update' are then refused).
  bool update_kernel = true;
  // The indexed kernel (a sparse matrix-vector product), likewise ('indexed' then refused).
  bool indexed_kernel = true;
  // The stencil kernel (a three-point stencil), likewise ('stencil' then refused).
  bool stencil_kernel = true;

  bool operator==(const Effort&) const = default;
};

struct Sizing {
  UsableMemory usable;
  std::uint64_t max_buffer_bytes = 0;       // no benchmark's buffers together exceed this
  std::vector<LevelCapacity> levels;        // data caches, innermost first
  std::vector<std::uint64_t> extra_steps;   // cache-class steps no hwloc level accounts for
  std::vector<std::uint64_t> memory_steps;  // steps beyond the caches (TLB reach, page walks)
  bool probed = false;
  std::uint64_t probed_up_to_bytes = 0;
  double memory_latency_seconds = 0;  // the probe's largest working set; 0 before the probe
  Effort effort;
  std::vector<std::string> notes;  // every clamp and disagreement, one line each

  // The last level the suites size for, all its instances together; 0 without caches.
  std::uint64_t last_level_total_bytes(const Topology& topology) const;
  // The last level as "DRAM" must lie beyond it: the larger of the level as sized and hwloc's
  // claim for it (the probe runs on one core, and sees less of a level that others share).
  std::uint64_t dram_side_last_level_bytes(const Topology& topology) const;
  // The largest working set of the memory sweep: sweep_beyond_last_level times the last level on
  // the DRAM side, at least 64 MiB and at least dram_bytes, at most max_buffer_bytes.
  std::uint64_t sweep_max_bytes(const Topology& topology) const;
  // What hwloc claims for the sized topology's last level, all its instances; 0 when unknown.
  std::uint64_t claimed_last_level_total_bytes(const Topology& topology) const;
  // A working set that means "DRAM": dram_beyond_last_level times the last level on the DRAM side;
  // at least 16 MiB, at most max_buffer_bytes.
  std::uint64_t dram_bytes(const Topology& topology) const;
  // The strides of the contention and stride experiments.
  std::vector<unsigned> strides() const;
  // 1, 2, 4, ..., cores, thinned to effort.max_thread_counts (keeping 1, 2 and all cores).
  std::vector<unsigned> thread_counts(unsigned cores) const;
};

// hwloc's caches clamped to the memory the process may use: what a program run alone uses.
Sizing default_sizing(const Topology& topology, const UsableMemory& usable);

// Says in the notes (replacing an earlier such note) when the memory sweep is clamped to the
// buffer allowance on the sized topology.
void note_clamped_sweep(Sizing& sizing, const Topology& sized);

// The topology the suites plan with: hwloc's, with each data cache's size replaced by the sizing's
// and the levels not seen by the probe removed. Binding and NUMA stay hwloc's.
Topology sized_topology(const Topology& topology, const Sizing& sizing);

// The repetitions and the time per repetition a suite runs with: the option where one was given,
// else quick mode's, else the effort's applied to the suite's default.
int planned_repetitions(const CommonOptions& options, const Sizing& sizing);
double planned_min_time(const CommonOptions& options, const Sizing& sizing, double normal,
                        double quick);

// ---- the probe ----

struct LatencyPoint {
  std::uint64_t bytes = 0;
  double seconds = 0;  // per dependent load, the fastest repetition
};

// The working sets of the coarse probe: two an octave from 4 KiB to four times hwloc's last level
// per instance (at least 64 MiB, at most 1 GiB and max_buffer_bytes); up to 1 MiB in quick mode.
// A claimed level beyond half the probe's reach is reported unverified.
std::vector<std::uint64_t> probe_working_sets(const Sizing& sizing, bool quick);

// Where latency steps up by at least 1.3 times, on the non-decreasing envelope of the points (a
// slower outlier does not make a step): the working set where the latency crosses the geometric
// mean of the plateaus on either side. Rises that start above 60 ns happen in memory (TLB reach,
// page walks, NUMA) and are kept apart from the cache boundaries.
struct LatencySteps {
  std::vector<std::uint64_t> caches;
  std::vector<std::uint64_t> in_memory;
};
LatencySteps latency_steps_split(std::vector<LatencyPoint> points);
// The cache boundaries alone.
std::vector<std::uint64_t> latency_steps(std::vector<LatencyPoint> points);

// The sizing with the probe's steps matched to hwloc's levels (in order, nearest in log size);
// where they differ by more than 2 times, a note says so and the suites size for the data.
Sizing refine_with_probe(const Sizing& sizing, const std::vector<LatencyPoint>& points);

nlohmann::json to_json(const Sizing& sizing);
// Throws an input Error naming `where` and the key for a malformed sizing.
Sizing sizing_from_json(const nlohmann::json& json, const std::string& where);
Sizing read_sizing(const std::string& path);

}  // namespace sonde::microbench
