#include "microbench/sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sonde::microbench {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
// A rise of the latency envelope between neighbouring probe points that belongs to a step, and
// the rise a whole step must reach to count (a cache level is at least 1.3 times slower than
// the one inside it; TLB reach and noise make smaller ones).
constexpr double kRisePerPoint = 1.12;
constexpr double kRisePerStep = 1.3;
// No cache, not even a 3D-stacked or a memory-side one, is this slow to hit; every DRAM is slower.
constexpr double kCacheLatencyCeiling = 60e-9;
// Data and hwloc farther apart than this disagree, and the run says so.
constexpr double kDisagreeFactor = 2.0;

std::uint64_t round_down(std::uint64_t bytes, std::uint64_t granule) {
  return std::max(granule, bytes / granule * granule);
}

}  // namespace

std::uint64_t Sizing::last_level_total_bytes(const Topology& topology) const {
  const auto& caches = topology.data_caches();
  if (caches.empty()) return 0;
  return caches.back().size_bytes * std::max(1u, caches.back().instances);
}

std::uint64_t Sizing::sweep_max_bytes(const Topology& topology) const {
  const double wanted =
      effort.sweep_beyond_last_level * static_cast<double>(dram_side_last_level_bytes(topology));
  const std::uint64_t bytes = std::max<std::uint64_t>(
      {64 * kMiB, static_cast<std::uint64_t>(wanted), dram_bytes(topology)});
  return round_down(std::min(bytes, max_buffer_bytes), 4096);
}

// The probe chases pointers on one core. A last level it saw much smaller than hwloc claims may
// still hold the data of many threads: on a 16-core guest (Xeon, hwloc 300 MiB of L3) the probe
// stepped at 17.5 MiB, one thread's triad fell only past 95 MiB, and 16 threads streamed 134 MiB
// at 260 GB/s where 16 processes streaming 3 GiB got 108 GB/s. So "DRAM" lies beyond both.
std::uint64_t Sizing::claimed_last_level_total_bytes(const Topology& topology) const {
  const auto& caches = topology.data_caches();
  if (caches.empty()) return 0;
  // The level of the sized topology's last cache (a level the probe showed absent is gone there).
  const auto level = std::find_if(levels.begin(), levels.end(), [&](const LevelCapacity& l) {
    return l.depth == caches.back().depth;
  });
  if (level == levels.end()) return 0;
  return level->hwloc_bytes * std::max(1u, caches.back().instances);
}

std::uint64_t Sizing::dram_side_last_level_bytes(const Topology& topology) const {
  return std::max(last_level_total_bytes(topology), claimed_last_level_total_bytes(topology));
}

std::uint64_t Sizing::dram_bytes(const Topology& topology) const {
  // Beyond the claim as well as the probe's step: a last level's replacement need not be LRU, and
  // streams a few times its size still hit in it (a Zen 5 guest whose probe stepped at 10 MiB of
  // a claimed 32 streamed 80 MiB with two threads at 117 GB/s, 2.3 times its memory's rate).
  const double wanted =
      effort.dram_beyond_last_level * static_cast<double>(dram_side_last_level_bytes(topology));
  const std::uint64_t bytes =
      std::max<std::uint64_t>(16 * kMiB, static_cast<std::uint64_t>(wanted));
  return round_down(std::min(bytes, max_buffer_bytes), 4096);
}

std::vector<unsigned> Sizing::strides() const {
  if (!effort.strides.empty()) return effort.strides;
  std::vector<unsigned> all;
  for (unsigned s = 1; s <= 256; s *= 2) all.push_back(s);
  return all;
}

std::vector<unsigned> Sizing::thread_counts(unsigned cores) const {
  cores = std::max(1u, cores);
  std::vector<unsigned> counts;
  for (unsigned t = 1; t < cores; t *= 2) counts.push_back(t);
  counts.push_back(cores);
  const std::size_t keep = effort.max_thread_counts;
  if (keep == 0 || counts.size() <= keep || keep < 3) return counts;
  // Keep 1, 2 and all cores, and as many of the doublings between as fit, spread evenly.
  std::vector<unsigned> kept{counts[0], counts[1]};
  const std::size_t middle = keep - 3;
  const std::size_t inner = counts.size() - 3;  // doublings strictly between 2 and all cores
  for (std::size_t i = 1; i <= middle; ++i) {
    kept.push_back(counts[1 + (i * (inner + 1)) / (middle + 1)]);
  }
  kept.push_back(counts.back());
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

void note_clamped_sweep(Sizing& sizing, const Topology& sized) {
  constexpr const char* kPrefix = "the memory sweep would reach ";
  std::erase_if(sizing.notes, [&](const std::string& note) { return note.rfind(kPrefix, 0) == 0; });
  const std::uint64_t last = sizing.dram_side_last_level_bytes(sized);
  if (last == 0) return;
  const double wanted = sizing.effort.sweep_beyond_last_level * static_cast<double>(last);
  if (wanted <= static_cast<double>(sizing.max_buffer_bytes)) return;
  sizing.notes.insert(
      sizing.notes.begin(),
      fmt::format("{}{} ({} times the last level, {}), but only {} may be used ({}): working "
                  "sets stop at {}",
                  kPrefix, format_bytes(wanted), sizing.effort.sweep_beyond_last_level,
                  format_bytes(last), format_bytes(sizing.usable.bytes), sizing.usable.bound_by,
                  format_bytes(sizing.max_buffer_bytes)));
}

Sizing default_sizing(const Topology& topology, const UsableMemory& usable) {
  Sizing sizing;
  sizing.usable = usable;
  // A quarter of what may be used: room for the chase's index arrays, the MPI library, the OS.
  sizing.max_buffer_bytes = round_down(usable.bytes / 4, 4096);
  for (const CacheLevel& cache : topology.data_caches()) {
    if (cache.size_bytes == 0) {
      sizing.notes.push_back(fmt::format("{}: hwloc gives no size; not sized for", cache.label()));
      continue;
    }
    LevelCapacity level;
    level.depth = cache.depth;
    level.name = cache.label();
    level.hwloc_bytes = cache.size_bytes;
    level.bytes = cache.size_bytes;
    level.source = "hwloc";
    sizing.levels.push_back(level);
  }
  note_clamped_sweep(sizing, topology);
  return sizing;
}

Topology sized_topology(const Topology& topology, const Sizing& sizing) {
  std::vector<CacheLevel> caches;
  for (const CacheLevel& cache : topology.data_caches()) {
    // By depth and claimed size: a hybrid CPU has caches of two sizes at one depth.
    const auto it =
        std::find_if(sizing.levels.begin(), sizing.levels.end(), [&](const LevelCapacity& l) {
          return l.depth == cache.depth && l.hwloc_bytes == cache.size_bytes;
        });
    if (it == sizing.levels.end()) {
      caches.push_back(cache);
      continue;
    }
    if (!it->seen) continue;
    CacheLevel sized = cache;
    sized.size_bytes = it->bytes;
    caches.push_back(sized);
  }
  return topology.with_data_caches(std::move(caches));
}

int planned_repetitions(const CommonOptions& options, const Sizing& sizing) {
  if (options.repetitions > 0) return options.repetitions;
  return options.quick ? 2 : sizing.effort.repetitions;
}

double planned_min_time(const CommonOptions& options, const Sizing& sizing, double normal,
                        double quick) {
  if (options.min_time_seconds > 0) return options.min_time_seconds;
  return options.quick ? quick : normal * sizing.effort.min_time_scale;
}

std::vector<std::uint64_t> probe_working_sets(const Sizing& sizing, bool quick) {
  std::uint64_t hi = 0;
  if (quick) {
    hi = kMiB;
  } else {
    std::uint64_t last = 0;
    for (const LevelCapacity& level : sizing.levels) last = std::max(last, level.hwloc_bytes);
    hi = std::clamp<std::uint64_t>(4 * last, 64 * kMiB, 1024 * kMiB);
    hi = std::min(hi, sizing.max_buffer_bytes);
  }
  std::vector<std::uint64_t> sizes;
  for (int i = 0;; ++i) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(4096.0 * std::exp2(i / 2.0)));
    const std::uint64_t rounded = bytes / 64 * 64;
    if (rounded > hi) break;
    sizes.push_back(rounded);
  }
  return sizes;
}

std::vector<std::uint64_t> latency_steps(std::vector<LatencyPoint> points) {
  return latency_steps_split(std::move(points)).caches;
}

namespace {

// A rise of the envelope from point i to point j (each point more than kRisePerPoint above the
// one before) holds two steps where a stretch inside it grows less than a third as fast (in log)
// as the rise does both before and after it: a short plateau, a level the points reach for an
// octave or two only. On a Zen 5 guest whose L3 held about 4 MiB, the chase rose from 3.4 ns at
// 362 KiB to 11.2 at 1.4 MiB (0.46 a point at most), then 1.13 and 1.13 times a point to 14.4 at
// 2.8 MiB, then on into memory: the two steps read as one at 4 MiB, and the L3 was dropped.
// Returns the rises, split at such stretches, each as its first and last point.
std::vector<std::pair<std::size_t, std::size_t>> split_rise(const std::vector<LatencyPoint>& points,
                                                            std::size_t i, std::size_t j) {
  const auto growth = [&](std::size_t k) {
    return std::log(points[k + 1].seconds / points[k].seconds);
  };
  std::size_t valley = 0;
  double lowest = std::numeric_limits<double>::infinity();
  for (std::size_t k = i + 1; k + 1 < j; ++k) {
    if (growth(k) < lowest) {
      lowest = growth(k);
      valley = k;
    }
  }
  if (valley > 0) {
    double before = 0, after = 0;
    for (std::size_t k = i; k < valley; ++k) before = std::max(before, growth(k));
    for (std::size_t k = valley + 1; k < j; ++k) after = std::max(after, growth(k));
    const bool apart = 3 * lowest < before && 3 * lowest < after;
    // Each part must still be a step on its own.
    const bool steps = points[valley].seconds >= points[i].seconds * kRisePerStep &&
                       points[j].seconds >= points[valley + 1].seconds * kRisePerStep;
    if (apart && steps) {
      auto out = split_rise(points, i, valley);
      const auto rest = split_rise(points, valley + 1, j);
      out.insert(out.end(), rest.begin(), rest.end());
      return out;
    }
  }
  return {{i, j}};
}

}  // namespace

LatencySteps latency_steps_split(std::vector<LatencyPoint> points) {
  std::sort(points.begin(), points.end(),
            [](const LatencyPoint& a, const LatencyPoint& b) { return a.bytes < b.bytes; });
  // The envelope from the right: a point slower than a larger one was disturbed, not a step.
  for (std::size_t i = points.size(); i-- > 1;) {
    points[i - 1].seconds = std::min(points[i - 1].seconds, points[i].seconds);
  }
  LatencySteps steps;
  std::size_t start = 0;
  while (start + 1 < points.size()) {
    if (points[start + 1].seconds <= points[start].seconds * kRisePerPoint) {
      ++start;
      continue;
    }
    // A rise starts after point `start`; it goes on while neighbours keep rising.
    std::size_t end = start + 1;
    while (end + 1 < points.size() && points[end + 1].seconds > points[end].seconds * kRisePerPoint)
      ++end;
    for (const auto& [i, j] : split_rise(points, start, end)) {
      const double lo = points[i].seconds, hi = points[j].seconds;
      if (hi < lo * kRisePerStep) continue;
      // The capacity: where the envelope crosses the geometric mean of the two plateaus
      // (interpolated in log size and log latency), as the profile's fit places it too. With a
      // random chase a cache's latency starts rising before it is full, so the last flat point
      // would understate it.
      const double middle = std::sqrt(lo * hi);
      double bytes = static_cast<double>(points[j].bytes);
      for (std::size_t k = i; k < j; ++k) {
        if (points[k + 1].seconds < middle) continue;
        const double x0 = std::log(static_cast<double>(points[k].bytes));
        const double x1 = std::log(static_cast<double>(points[k + 1].bytes));
        const double y0 = std::log(points[k].seconds), y1 = std::log(points[k + 1].seconds);
        const double t = y1 > y0 ? (std::log(middle) - y0) / (y1 - y0) : 0;
        bytes = std::exp(x0 + std::clamp(t, 0.0, 1.0) * (x1 - x0));
        break;
      }
      const auto at = static_cast<std::uint64_t>(bytes) / 64 * 64;
      // A rise that starts from memory-class latency is no cache boundary: TLB reach, page
      // walks (nested ones in a VM), a NUMA or HBM boundary.
      (lo < kCacheLatencyCeiling ? steps.caches : steps.in_memory).push_back(at);
    }
    start = end;
  }
  return steps;
}

Sizing refine_with_probe(const Sizing& sizing, const std::vector<LatencyPoint>& points) {
  Sizing refined = sizing;
  refined.probed = true;
  for (const LatencyPoint& p : points) {
    if (p.bytes >= refined.probed_up_to_bytes) {
      refined.probed_up_to_bytes = p.bytes;
      // A memory latency for the estimates, where the probe reached memory at all.
      refined.memory_latency_seconds = p.seconds >= kCacheLatencyCeiling ? p.seconds : 0;
    }
  }
  const LatencySteps split = latency_steps_split(points);
  const std::vector<std::uint64_t>& steps = split.caches;
  refined.memory_steps = split.in_memory;
  if (steps.empty()) {
    // Nothing cache-like in the data (an emulator, a probe cut short by a small allowance):
    // hwloc's claims stay, said to be unverified, rather than a machine without caches.
    for (LevelCapacity& level : refined.levels) level.source = "hwloc, no step in the probe";
    refined.notes.push_back(fmt::format(
        "the latency probe (up to {}) found no cache-like step: hwloc's caches are used "
        "unverified",
        format_bytes(refined.probed_up_to_bytes)));
    return refined;
  }
  std::vector<LevelCapacity>& levels = refined.levels;
  const std::size_t h = levels.size(), t = steps.size();
  // Match steps to levels in order, min(h, t) pairs, least total |log ratio| (dynamic programming).
  const double inf = std::numeric_limits<double>::infinity();
  const auto cost = [&](std::size_t level, std::size_t step) {
    return std::abs(
        std::log(static_cast<double>(steps[step]) /
                 static_cast<double>(std::max<std::uint64_t>(1, levels[level].hwloc_bytes))));
  };
  const std::size_t pairs = std::min(h, t);
  // best[a][b][k]: matching k pairs among the first a levels and b steps.
  std::vector<std::vector<std::vector<double>>> best(
      h + 1, std::vector<std::vector<double>>(t + 1, std::vector<double>(pairs + 1, inf)));
  for (std::size_t a = 0; a <= h; ++a)
    for (std::size_t b = 0; b <= t; ++b) best[a][b][0] = 0;
  for (std::size_t a = 1; a <= h; ++a) {
    for (std::size_t b = 1; b <= t; ++b) {
      for (std::size_t k = 1; k <= pairs; ++k) {
        double v = std::min(best[a - 1][b][k], best[a][b - 1][k]);
        if (best[a - 1][b - 1][k - 1] < inf) {
          v = std::min(v, best[a - 1][b - 1][k - 1] + cost(a - 1, b - 1));
        }
        best[a][b][k] = v;
      }
    }
  }
  std::vector<int> step_of(h, -1);
  std::vector<bool> step_used(t, false);
  for (std::size_t a = h, b = t, k = pairs; k > 0;) {
    if (best[a][b][k] == best[a - 1][b][k]) {
      --a;
    } else if (best[a][b][k] == best[a][b - 1][k]) {
      --b;
    } else {
      step_of[a - 1] = static_cast<int>(b - 1);
      step_used[b - 1] = true;
      --a, --b, --k;
    }
  }
  for (std::size_t i = 0; i < h; ++i) {
    LevelCapacity& level = levels[i];
    if (step_of[i] >= 0) {
      const std::uint64_t seen = steps[static_cast<std::size_t>(step_of[i])];
      level.probe_bytes = seen;
      const double ratio = static_cast<double>(std::max(seen, level.hwloc_bytes)) /
                           static_cast<double>(std::min(seen, level.hwloc_bytes));
      if (ratio > kDisagreeFactor) {
        level.bytes = seen;
        level.source = "probe";
        refined.notes.push_back(fmt::format(
            "{}: hwloc claims {} per instance, the latency probe steps at {}: sized for the "
            "data (dense points at hwloc's claim too, where the sweep reaches it)",
            level.name, format_bytes(level.hwloc_bytes), format_bytes(seen)));
      }
    } else if (level.hwloc_bytes <= refined.probed_up_to_bytes / 2) {
      level.seen = false;
      refined.notes.push_back(fmt::format(
          "{}: hwloc claims {} per instance, but the latency probe (up to {}) shows no step that "
          "fits it: sized as if it were not there",
          level.name, format_bytes(level.hwloc_bytes), format_bytes(refined.probed_up_to_bytes)));
    } else {
      level.source = "hwloc, beyond the probe";
      refined.notes.push_back(fmt::format(
          "{}: hwloc claims {} per instance, beyond what the probe could reach ({}): unverified",
          level.name, format_bytes(level.hwloc_bytes), format_bytes(refined.probed_up_to_bytes)));
    }
  }
  for (std::size_t j = 0; j < t; ++j) {
    if (!step_used[j]) refined.extra_steps.push_back(steps[j]);
  }
  return refined;
}

nlohmann::json to_json(const Sizing& sizing) {
  nlohmann::json levels = nlohmann::json::array();
  for (const LevelCapacity& level : sizing.levels) {
    nlohmann::json entry = {
        {"depth", level.depth}, {"name", level.name},     {"hwloc_bytes", level.hwloc_bytes},
        {"bytes", level.bytes}, {"source", level.source}, {"seen", level.seen}};
    if (level.probe_bytes) entry["probe_bytes"] = *level.probe_bytes;
    levels.push_back(entry);
  }
  const Effort& e = sizing.effort;
  return {{"usable_memory", to_json(sizing.usable)},
          {"max_buffer_bytes", sizing.max_buffer_bytes},
          {"levels", levels},
          {"extra_steps_bytes", sizing.extra_steps},
          {"memory_steps_bytes", sizing.memory_steps},
          {"probed", sizing.probed},
          {"probed_up_to_bytes", sizing.probed_up_to_bytes},
          {"memory_latency_seconds", sizing.memory_latency_seconds},
          {"effort",
           {{"name", e.name},
            {"repetitions", e.repetitions},
            {"min_time_scale", e.min_time_scale},
            {"points_per_octave", e.points_per_octave},
            {"dense_points_per_octave", e.dense_points_per_octave},
            {"strides", e.strides},
            {"max_thread_counts", e.max_thread_counts},
            {"sweep_beyond_last_level", e.sweep_beyond_last_level},
            {"dram_beyond_last_level", e.dram_beyond_last_level},
            {"update_kernel", e.update_kernel},
            {"indexed_kernel", e.indexed_kernel},
            {"stencil_kernel", e.stencil_kernel}}},
          {"notes", sizing.notes}};
}

Sizing sizing_from_json(const nlohmann::json& json, const std::string& where) {
  Sizing sizing;
  std::string key;
  try {
    const auto& usable = (key = "usable_memory", json.at(key));
    sizing.usable.bytes = (key = "usable_memory.bytes", usable.at("bytes").get<std::uint64_t>());
    sizing.usable.bound_by =
        (key = "usable_memory.bound_by", usable.at("bound_by").get<std::string>());
    sizing.usable.bounds =
        (key = "usable_memory.bounds", usable.at("bounds").get<std::vector<std::string>>());
    sizing.max_buffer_bytes = (key = "max_buffer_bytes", json.at(key).get<std::uint64_t>());
    for (const nlohmann::json& entry : (key = "levels", json.at(key))) {
      LevelCapacity level;
      key = "levels[].depth";
      level.depth = entry.at("depth").get<int>();
      key = "levels[].name";
      level.name = entry.at("name").get<std::string>();
      key = "levels[].hwloc_bytes";
      level.hwloc_bytes = entry.at("hwloc_bytes").get<std::uint64_t>();
      key = "levels[].bytes";
      level.bytes = entry.at("bytes").get<std::uint64_t>();
      key = "levels[].source";
      level.source = entry.at("source").get<std::string>();
      key = "levels[].seen";
      level.seen = entry.at("seen").get<bool>();
      if (entry.contains("probe_bytes")) {
        key = "levels[].probe_bytes";
        level.probe_bytes = entry.at("probe_bytes").get<std::uint64_t>();
      }
      if (level.bytes == 0) throw input_error(where, "levels[].bytes: must be positive");
      sizing.levels.push_back(level);
    }
    sizing.extra_steps =
        (key = "extra_steps_bytes", json.at(key).get<std::vector<std::uint64_t>>());
    sizing.memory_steps =
        (key = "memory_steps_bytes", json.at(key).get<std::vector<std::uint64_t>>());
    sizing.probed = (key = "probed", json.at(key).get<bool>());
    sizing.probed_up_to_bytes = (key = "probed_up_to_bytes", json.at(key).get<std::uint64_t>());
    sizing.memory_latency_seconds = (key = "memory_latency_seconds", json.at(key).get<double>());
    const auto& e = (key = "effort", json.at(key));
    Effort& effort = sizing.effort;
    effort.name = (key = "effort.name", e.at("name").get<std::string>());
    effort.repetitions = (key = "effort.repetitions", e.at("repetitions").get<int>());
    effort.min_time_scale = (key = "effort.min_time_scale", e.at("min_time_scale").get<double>());
    effort.points_per_octave =
        (key = "effort.points_per_octave", e.at("points_per_octave").get<double>());
    effort.dense_points_per_octave =
        (key = "effort.dense_points_per_octave", e.at("dense_points_per_octave").get<double>());
    effort.strides = (key = "effort.strides", e.at("strides").get<std::vector<unsigned>>());
    effort.max_thread_counts =
        (key = "effort.max_thread_counts", e.at("max_thread_counts").get<unsigned>());
    effort.sweep_beyond_last_level =
        (key = "effort.sweep_beyond_last_level", e.at("sweep_beyond_last_level").get<double>());
    effort.dram_beyond_last_level =
        (key = "effort.dram_beyond_last_level", e.at("dram_beyond_last_level").get<double>());
    // Absent from the sizing files of runs made before the kernel existed.
    effort.update_kernel = (key = "effort.update_kernel", e.value("update_kernel", true));
    effort.indexed_kernel = (key = "effort.indexed_kernel", e.value("indexed_kernel", true));
    effort.stencil_kernel = (key = "effort.stencil_kernel", e.value("stencil_kernel", true));
    sizing.notes = (key = "notes", json.at(key).get<std::vector<std::string>>());
  } catch (const nlohmann::json::exception& e) {
    throw input_error(where, fmt::format("{}: missing or of the wrong type ({})", key, e.what()));
  }
  if (sizing.max_buffer_bytes == 0) throw input_error(where, "max_buffer_bytes: must be positive");
  if (sizing.max_buffer_bytes > sizing.usable.bytes) {
    throw input_error(where, "max_buffer_bytes: more than usable_memory.bytes");
  }
  for (const LevelCapacity& level : sizing.levels) {
    if (level.hwloc_bytes == 0) throw input_error(where, "levels[].hwloc_bytes: must be positive");
  }
  const Effort& e = sizing.effort;
  for (unsigned stride : e.strides) {
    if (stride == 0) throw input_error(where, "effort.strides: a stride must be at least 1");
  }
  const auto finite_positive = [](double x) { return std::isfinite(x) && x > 0; };
  if (!finite_positive(e.sweep_beyond_last_level) || !finite_positive(e.dram_beyond_last_level) ||
      !finite_positive(e.min_time_scale) || !finite_positive(e.points_per_octave) ||
      !std::isfinite(e.dense_points_per_octave)) {
    throw input_error(where, "effort: the scales and points an octave must be finite and positive");
  }
  if (e.max_thread_counts == 1 || e.max_thread_counts == 2) {
    throw input_error(where,
                      "effort.max_thread_counts: 0 (all) or at least 3 (1, 2 and all cores)");
  }
  if (sizing.effort.repetitions < 1 || !(sizing.effort.min_time_scale > 0) ||
      !(sizing.effort.points_per_octave > 0) || sizing.effort.dense_points_per_octave < 0) {
    throw input_error(where,
                      "effort: repetitions, min_time_scale and points_per_octave must be "
                      "positive");
  }
  return sizing;
}

Sizing read_sizing(const std::string& path) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path, fmt::format("is not valid JSON: {}", e.what()));
  }
  return sizing_from_json(json, path);
}

}  // namespace sonde::microbench
