#include "characterize/run_plan.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/units.hpp"
#include "microbench/compute/compute_suite.hpp"
#include "microbench/contention/contention_suite.hpp"
#include "microbench/memory/memory_suite.hpp"
#include "microbench/mpi/mpi_plan.hpp"
#include "microbench/overhead/overhead_suite.hpp"

namespace sonde::characterize {

using namespace microbench;  // the orchestrator drives the harness and its suites
namespace {

// The harness model (see run_plan.hpp). Rates are deliberately on the slow side of what a
// server or a VM does: an estimate that is too long wastes budget, one too short breaks it.
constexpr double kProgramStartSeconds = 0.6;     // hwloc, the clock measurement, PAPI
constexpr double kLauncherStartSeconds = 1.5;    // mpiexec or srun bringing up the ranks
constexpr double kPerBenchmarkSeconds = 0.01;    // registration, reporting
constexpr double kRepetitionOverrun = 1.4;       // Google Benchmark's aim over the minimum
constexpr double kSearchRepetitions = 0.7;       // the iteration-count search, in repetitions
constexpr double kRunsPerRepetitionSetUp = 1.5;  // runs of the search that also set up
// First touch and initialization of a fresh buffer: page faults, zeroing, the first writes. 2 ns a
// byte was measured on a KVM guest with nested paging (the contention suite's 127 MiB "dram"
// sub-arrays, allocated for every run); bare metal is faster, so this errs long.
constexpr double kTouchSecondsPerByte = 2e-9;
// Re-measuring noisy benchmarks may take up to a quarter of a part's first pass; on a quiet
// machine it takes less.
constexpr double kRemeasureAllowance = 1.15;
// One pass of a bandwidth kernel over its working set: a repetition lasts at least one pass,
// however short the minimum time (10 GB/s, one core's memory bandwidth on the slow side).
constexpr double kStreamSecondsPerByte = 1e-10;
// What an MPI collective costs beyond its timed minimum, in seconds a benchmark: each of Google
// Benchmark's runs sets up and fills its buffers, warms up, times iterations between barriers
// (the cold ones flushing their buffers first) and checks the result. Measured 0.26 s on 2 ranks
// of a 2-core guest; 0.25, 0.40, 0.31 and 0.56 s on communicators of 2, 4, 8 and 16 of a 16-core
// node's 16 ranks: a line through 0.25 at 2 and 0.57 at 16.
constexpr double kCollectiveSeconds = 0.2;
constexpr double kCollectiveSecondsPerRank = 0.023;
constexpr double kShuffleSecondsPerLine = 20e-9;  // the chase's random permutation
constexpr double kGatherSecondsPerLine = 10e-9;   // a line gather's pass, per line
constexpr double kMissSeconds = 400e-9;  // a load from memory, until the probe has measured one
constexpr double kHitSeconds = 5e-9;     // one dependent load from a cache
constexpr std::uint64_t kWarmLoadsCapProbe = 1ull << 22;

std::uint64_t u64(const nlohmann::json& params, const char* key) {
  const auto it = params.find(key);
  return it != params.end() && it->is_number() ? it->get<std::uint64_t>() : 0;
}

std::string str(const nlohmann::json& params, const char* key) {
  const auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// Linking a chase writes every line once in random order, and its warm-up trip loads every line
// once, up to a cap: beyond the last level each is a miss.
double chase_set_up(std::uint64_t bytes, std::uint64_t line, std::uint64_t warm_cap_lines,
                    std::uint64_t last_level_bytes, double miss_seconds) {
  const double lines = static_cast<double>(bytes / std::max<std::uint64_t>(line, 1));
  const double warm = std::min(lines, static_cast<double>(warm_cap_lines));
  const double per_access = bytes > last_level_bytes ? miss_seconds : kHitSeconds;
  return lines * (kShuffleSecondsPerLine + per_access) + warm * per_access +
         bytes * kTouchSecondsPerByte;
}

double miss_seconds_of(const Sizing& sizing) {
  return sizing.memory_latency_seconds > 0 ? sizing.memory_latency_seconds : kMissSeconds;
}

struct Tally {
  std::map<std::string, PartEstimate> by_part;
  std::vector<std::string> order;
  void add(const std::string& suite, const std::string& part, double seconds) {
    if (!by_part.count(part)) {
      order.push_back(part);
      by_part[part] = {suite, part, 0, kProgramStartSeconds};
    }
    by_part[part].benchmarks += 1;
    by_part[part].seconds += seconds * kRemeasureAllowance;
  }
};

void tally_registry(const ParamRegistry& registry, const std::string& suite, int repetitions,
                    const std::map<std::string, double>& min_time_by_part, double min_time,
                    std::uint64_t last_level_bytes, double miss_seconds, Tally& tally) {
  for (const auto& [name, params] : registry.all()) {
    const std::string part = str(params, "part");
    const auto special = min_time_by_part.find(part);
    const double t = special != min_time_by_part.end() ? special->second : min_time;
    nlohmann::json with_level = params;
    with_level["last_level_bytes"] = last_level_bytes;
    with_level["miss_seconds"] = miss_seconds;
    tally.add(suite, part, estimate_benchmark_seconds(with_level, repetitions, t));
  }
}

std::vector<PartEstimate> in_order(const Tally& tally, const std::vector<std::string>& parts) {
  std::vector<PartEstimate> out;
  for (const std::string& part : parts) {
    const auto it = tally.by_part.find(part);
    out.push_back(it != tally.by_part.end() ? it->second : PartEstimate{"", part, 0, 0});
  }
  return out;
}

std::vector<PartEstimate> estimate_mpi(const SuiteRun& run, const SuiteSelection& selection,
                                       const Topology& topology, const Sizing& sizing) {
  const int ranks = launcher_ranks(run.launcher).value_or(static_cast<int>(topology.cores()));
  CommonOptions common = selection.memory.common;
  common.parts = run.parts;
  const MpiSuitePlan plan =
      plan_mpi_suite(common, sizing, ranks, std::min(ranks, static_cast<int>(topology.cores())), {},
                     selection.mpi_program == "sonde-bench-mpi-smpi", selection.collective_bytes);
  const double per =
      plan.warm_up_seconds + kPerBenchmarkSeconds +
      (plan.repetitions + kSearchRepetitions) * kRepetitionOverrun * plan.min_time_seconds;
  std::vector<PartEstimate> out;
  for (const std::string& part : run.parts) {
    std::size_t count = 0;
    if (part == "pingpong") count = plan.pingpong_bytes.size();
    if (part == "map") count = 2 * plan.map_pairs.size();
    if (part == "stream") count = 2 * plan.stream_bytes.size();
    double set_up = 0;
    if (part == "collectives") {
      const std::vector<PlannedCollective> collectives = planned_collectives(plan);
      count = collectives.size();
      for (const PlannedCollective& c : collectives)
        set_up += kCollectiveSeconds + kCollectiveSecondsPerRank * c.ranks;
    }
    if (part == "stream") {
      // Each run allocates and fills a window of send and receive buffers (at most 64 MiB each),
      // once for each direction.
      for (std::uint64_t m : plan.stream_bytes) {
        const double bytes = static_cast<double>(std::max<std::uint64_t>(m, 1));
        const double window = std::clamp(64.0 * (1 << 20) / bytes, 1.0, double(plan.window));
        set_up += 2 * 2 * bytes * window * kTouchSecondsPerByte *
                  (plan.repetitions + kRunsPerRepetitionSetUp);
      }
    }
    out.push_back({"mpi", part, count,
                   kLauncherStartSeconds + kProgramStartSeconds +
                       kRemeasureAllowance * (static_cast<double>(count) * per + set_up)});
  }
  return out;
}

std::vector<PartEstimate> estimate_suite(const SuiteRun& run, const SuiteSelection& selection,
                                         const Topology& sized, const Sizing& sizing) {
  if (run.suite == "mpi") return estimate_mpi(run, selection, sized, sizing);
  CommonOptions common = selection.memory.common;
  common.parts = run.parts;
  // A chase runs on one core: the last level it reaches is one instance.
  const auto& caches = sized.data_caches();
  const std::uint64_t last = caches.empty() ? 0 : caches.back().size_bytes;
  ParamRegistry registry;
  Tally tally;
  if (run.suite == "memory") {
    MemorySuiteOptions options = selection.memory;
    options.common = common;
    const MemorySuitePlan plan = plan_memory_suite(options, sized, sizing);
    register_memory_suite(plan, sized, std::nullopt, registry);
    tally_registry(registry, run.suite, plan.repetitions, {{"probe", 0.002}}, plan.min_time_seconds,
                   last, miss_seconds_of(sizing), tally);
  } else if (run.suite == "contention") {
    const ContentionSuitePlan plan = plan_contention_suite(common, sized, sizing);
    register_contention_suite(plan, sized, std::nullopt, registry);
    tally_registry(registry, run.suite, plan.repetitions, {}, plan.min_time_seconds, last,
                   miss_seconds_of(sizing), tally);
  } else if (run.suite == "overhead") {
    const OverheadSuitePlan plan = plan_overhead_suite(common, sized, sizing);
    register_overhead_suite(plan, sized, std::nullopt, registry);
    tally_registry(registry, run.suite, plan.repetitions, {{"pipe", plan.pipe_min_time_seconds}},
                   plan.min_time_seconds, last, miss_seconds_of(sizing), tally);
  } else if (run.suite == "compute") {
    const ComputeSuitePlan plan = plan_compute_suite(common, sized, sizing);
    register_compute_suite(plan, sized, std::nullopt, registry);
    tally_registry(registry, run.suite, plan.repetitions, {}, plan.min_time_seconds, last,
                   miss_seconds_of(sizing), tally);
  }
  // Registering was only for counting: the benchmarks run in the suites' own programs.
  benchmark::ClearRegisteredBenchmarks();
  return in_order(tally, run.parts);
}

}  // namespace

RunPlan plan_run_at_effort(const SuiteSelection& selection, const Topology& topology,
                           const Sizing& sizing, double budget_seconds, bool probe) {
  RunPlan plan;
  plan.sizing = sizing;
  plan.budget_seconds = budget_seconds;
  plan.probe = probe;
  const Topology sized = sized_topology(topology, sizing);
  note_clamped_sweep(plan.sizing, sized);
  plan.suites = plan_suites(selection, sized, sizing);
  for (const SuiteRun& run : plan.suites) {
    for (PartEstimate& part : estimate_suite(run, selection, sized, sizing)) {
      part.suite = run.suite;
      plan.parts.push_back(part);
    }
  }
  if (probe) {
    SuiteRun run{"memory", "sonde-bench-memory", {}, {}, {"probe"}, {}};
    MemorySuiteOptions options = selection.memory;
    options.common.parts = {"probe"};
    const MemorySuitePlan probe_plan = plan_memory_suite(options, sized, sizing);
    double seconds = kProgramStartSeconds;
    // The probe is there because hwloc's last level may be a fiction: beyond 32 MiB (or the
    // claim, if smaller) its estimate takes every access for a miss.
    const auto& caches = sized.data_caches();
    const std::uint64_t probe_cached_bytes =
        std::min<std::uint64_t>(32ull << 20, caches.empty() ? 0 : caches.back().size_bytes);
    for (std::uint64_t bytes : probe_plan.probe_working_sets) {
      seconds += kPerBenchmarkSeconds +
                 chase_set_up(bytes, probe_plan.line_bytes, kWarmLoadsCapProbe, probe_cached_bytes,
                              miss_seconds_of(sizing)) +
                 (3 + kSearchRepetitions) * kRepetitionOverrun * 0.002;
    }
    plan.probe_estimate = {"memory", "probe", probe_plan.probe_working_sets.size(), seconds};
  }
  return plan;
}

double RunPlan::total_seconds() const {
  double total = probe ? probe_estimate.seconds : 0;
  for (const PartEstimate& part : parts) total += part.seconds;
  return total;
}

std::vector<Effort> effort_ladder() {
  std::vector<Effort> ladder;
  Effort e;
  ladder.push_back(e);
  e.name = "fewer points";
  e.dense_points_per_octave = 4;
  ladder.push_back(e);
  e.name = "3 repetitions, 5 strides";
  e.repetitions = 3;
  e.strides = {1, 4, 16, 64, 256};
  ladder.push_back(e);
  e.name = "half time";
  e.min_time_scale = 0.5;
  e.points_per_octave = 1;
  e.max_thread_counts = 4;
  ladder.push_back(e);
  e.name = "quarter time, no update, indexed or stencil kernel";
  e.min_time_scale = 0.25;
  e.update_kernel = false;
  e.indexed_kernel = false;
  e.stencil_kernel = false;
  e.dense_points_per_octave = 2;
  e.sweep_beyond_last_level = 4;
  e.dram_beyond_last_level = 2;
  e.strides = {1, 16, 256};
  e.max_thread_counts = 3;
  ladder.push_back(e);
  return ladder;
}

double estimate_benchmark_seconds(const nlohmann::json& params, int repetitions,
                                  double min_time_seconds) {
  const std::string kernel = str(params, "kernel");
  const std::uint64_t last = u64(params, "last_level_bytes");
  // Every suite keeps a benchmark's buffers for all its runs (the MPI stream aside): they are set
  // up once.
  double set_up = 0;
  double per_repetition = min_time_seconds;  // a bandwidth kernel's at least one pass
  if (kernel == "pointer_chase" || kernel == "latency_probe") {
    const std::uint64_t bytes = u64(params, "working_set_bytes");
    const std::uint64_t cap =
        kernel == "latency_probe" ? kWarmLoadsCapProbe : std::max<std::uint64_t>(1, 2 * last / 64);
    const double miss = params.value("miss_seconds", kMissSeconds);
    set_up = chase_set_up(bytes, std::max<std::uint64_t>(64, u64(params, "line_bytes")), cap, last,
                          miss);
  } else if (params.contains("bytes_per_element")) {
    const double bytes = static_cast<double>(u64(params, "working_set_bytes"));
    set_up = bytes * kTouchSecondsPerByte;
    per_repetition = std::max(per_repetition, bytes * kStreamSecondsPerByte);
  } else if (kernel == "strided_read" || kernel == "strided_write") {
    // The suites keep a target's buffer for all its strides: it is touched before the first.
    std::uint64_t bytes = u64(params, "working_set_bytes");
    if (params.contains("sub_array_bytes")) {
      const std::uint64_t arrays =
          str(params, "sharing") == "concurrent" ? 1 : u64(params, "threads");
      bytes = u64(params, "sub_array_bytes") * std::max<std::uint64_t>(1, arrays);
    }
    if (u64(params, "stride_words") <= 1)
      set_up = static_cast<double>(bytes) * kTouchSecondsPerByte;
  } else if (kernel == "column_read") {
    // Each thread's matrix is touched once for all the runs of its size.
    set_up = static_cast<double>(u64(params, "working_set_bytes") *
                                 std::max<std::uint64_t>(1, u64(params, "threads"))) *
             kTouchSecondsPerByte;
  } else if (kernel == "line_gather") {
    // The first span touches the buffers all spans read; a pass over them can outlast the
    // minimum time.
    if (params.value("touches_buffer", false)) {
      set_up = static_cast<double>(u64(params, "working_set_bytes") *
                                   std::max<std::uint64_t>(1, u64(params, "threads"))) *
               kTouchSecondsPerByte;
    }
    per_repetition = std::max(
        per_repetition, static_cast<double>(u64(params, "lines_per_pass")) * kGatherSecondsPerLine);
  } else if (kernel == "read") {  // the NUMA read: its buffer too is kept across runs
    set_up = static_cast<double>(u64(params, "working_set_bytes")) * kTouchSecondsPerByte;
  }
  return kPerBenchmarkSeconds + set_up +
         (repetitions + kSearchRepetitions) * kRepetitionOverrun * per_repetition;
}

RunPlan plan_run(const SuiteSelection& selection, const Topology& topology, const Sizing& sizing,
                 double budget_seconds, bool probe) {
  std::vector<std::string> tried;
  RunPlan plan;
  for (const Effort& effort : effort_ladder()) {
    Sizing at = sizing;
    at.effort = effort;
    plan = plan_run_at_effort(selection, topology, at, budget_seconds, probe);
    if (plan.fits()) break;
    tried.push_back(effort.name);
  }
  if (!plan.fits()) tried.pop_back();  // the last one is the plan kept
  plan.efforts_tried = tried;
  return plan;
}

std::string format_duration(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

std::optional<int> launcher_ranks(const std::vector<std::string>& launcher) {
  for (std::size_t i = 0; i < launcher.size(); ++i) {
    const std::string& word = launcher[i];
    std::string value;
    // srun's -N is a node count, not ranks.
    for (const char* flag : {"-n", "-np", "--np", "--ntasks"}) {
      if (word == flag && i + 1 < launcher.size()) value = launcher[i + 1];
      const std::string with_equals = std::string(flag) + "=";
      if (word.rfind(with_equals, 0) == 0) value = word.substr(with_equals.size());
    }
    if (value.empty()) continue;
    try {
      std::size_t used = 0;
      const int ranks = std::stoi(value, &used);
      if (used == value.size() && ranks > 0) return ranks;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::string format_plan(const RunPlan& plan, const Topology& topology) {
  const Sizing& s = plan.sizing;
  std::string text =
      fmt::format("Plan: effort '{}', estimated {} against a budget of {}{}\n", s.effort.name,
                  format_duration(plan.total_seconds()), format_duration(plan.budget_seconds),
                  plan.fits() ? "" : " (the least effort does not fit: see the notes)");
  text += fmt::format("  memory this process may use: {} (bound by {}); buffers up to {}\n",
                      format_bytes(static_cast<double>(s.usable.bytes)), s.usable.bound_by,
                      format_bytes(static_cast<double>(s.max_buffer_bytes)));
  text += "  caches        hwloc claims (per instance)   sized for\n";
  for (const LevelCapacity& level : s.levels) {
    text += fmt::format(
        "  {:<13} {:<29} {}\n", level.name, format_bytes(static_cast<double>(level.hwloc_bytes)),
        level.seen
            ? fmt::format("{} ({})", format_bytes(static_cast<double>(level.bytes)), level.source)
            : std::string("not there (no step in the probe)"));
  }
  const Topology sized = sized_topology(topology, s);
  text += fmt::format(
      "  working sets: up to {}; 'dram' means {}; {} repetitions; points an octave: {} over the "
      "range, {} near each capacity\n",
      format_bytes(static_cast<double>(s.sweep_max_bytes(sized))),
      format_bytes(static_cast<double>(s.dram_bytes(sized))), s.effort.repetitions,
      s.effort.points_per_octave, s.effort.dense_points_per_octave);
  if (plan.probe) {
    text +=
        fmt::format("  {:<11} {:<22} {:>5} sizes   ~{}\n", "memory", "probe (first)",
                    plan.probe_estimate.benchmarks, format_duration(plan.probe_estimate.seconds));
  }
  for (const PartEstimate& part : plan.parts) {
    text += fmt::format("  {:<11} {:<22} {:>5} benchmarks ~{}\n", part.suite, part.part,
                        part.benchmarks, format_duration(part.seconds));
  }
  for (const std::string& note : s.notes) text += "  note: " + note + "\n";
  if (!plan.efforts_tried.empty()) {
    text += fmt::format("  note: more thorough efforts did not fit the budget: {}\n",
                        fmt::format("{}", fmt::join(plan.efforts_tried, ", ")));
  }
  return text;
}

}  // namespace sonde::characterize
