#include "fit/memory_levels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/result_format.hpp"
#include "core/run_records.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"
#include "profile/profile.hpp"

namespace sonde::fit {

namespace {

// One measured point: a benchmark's median over its repetitions (the iteration itself when it
// was run once), and its coefficient of variation when there were repetitions.
struct SweepPoint {
  const BenchmarkRecord* median = nullptr;
  const BenchmarkRecord* cv = nullptr;
  std::vector<const BenchmarkRecord*> iterations;
};

std::map<std::string, SweepPoint> points_by_run(const ResultFile& file) {
  std::map<std::string, SweepPoint> points;
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (!record.error_message.empty() || !record.params.is_object()) continue;
    SweepPoint& point = points[record.run_name];
    if (record.run_type == "aggregate") {
      if (record.aggregate_name == "median") point.median = &record;
      if (record.aggregate_name == "cv") point.cv = &record;
    } else {
      point.iterations.push_back(&record);
    }
  }
  return points;
}

std::optional<double> point_value(const SweepPoint& point, const std::string& counter) {
  if (point.median) return point.median->counter(counter);
  std::vector<double> values;
  for (const BenchmarkRecord* record : point.iterations) {
    if (const auto value = record->counter(counter)) values.push_back(*value);
  }
  if (values.empty()) return std::nullopt;
  return sonde::median(values);
}

// The points of one window for one quantity: (working set, value, value in cycles or 0, cv).
struct Collector {
  struct Sample {
    std::uint64_t bytes;
    double value;
    double cycles;
    double cv;
  };
  std::vector<Sample> samples;
  bool higher_is_better = false;

  // The plateau of `value`, and of `cycles` over the same sizes, anchored on the fastest size of a
  // cache level or the slowest of DRAM (see Plateau).
  std::pair<Plateau, std::optional<Plateau>> plateaus(bool anchor_on_fastest) const {
    const bool take_max = higher_is_better == anchor_on_fastest;
    double anchor = samples.front().value;
    for (const Sample& s : samples)
      anchor = take_max ? std::max(anchor, s.value) : std::min(anchor, s.value);
    std::vector<double> values, cycles;
    Plateau p;
    p.sizes_in_window = samples.size();
    for (const Sample& s : samples) {
      const bool on =
          take_max ? s.value * kPlateauBand >= anchor : s.value <= anchor * kPlateauBand;
      if (!on) continue;
      values.push_back(s.value);
      if (s.cycles > 0) cycles.push_back(s.cycles);
      p.flat_up_to_bytes = std::max(p.flat_up_to_bytes, s.bytes);
      p.worst_cv = std::max(p.worst_cv, s.cv);
    }
    p.median = sonde::median(values);
    p.min = *std::min_element(values.begin(), values.end());
    p.max = *std::max_element(values.begin(), values.end());
    p.sizes = values.size();
    std::optional<Plateau> in_cycles;
    if (cycles.size() == values.size()) {
      in_cycles = p;
      in_cycles->median = sonde::median(cycles);
      in_cycles->min = *std::min_element(cycles.begin(), cycles.end());
      in_cycles->max = *std::max_element(cycles.begin(), cycles.end());
    }
    return {p, in_cycles};
  }
};

namespace param = result_format::param;

// A cache's window that holds a plateau: it has a top, and its bottom lies below it.
bool cache_plateau(const LevelWindow& window) {
  return window.hi_bytes && window.lo_bytes <= *window.hi_bytes;
}

// A parameter of a benchmark entry, strictly (core/run_records: the file, benchmark and key named).
template <typename T>
T param_of(const BenchmarkRecord& record, const char* key, const std::string& where) {
  return required_param<T>(record.params, key, record.name, where);
}

}  // namespace

std::vector<LevelWindow> level_windows(const nlohmann::json& topology, unsigned threads) {
  std::vector<LevelWindow> windows;
  std::uint64_t inner = 0, claimed_inner = 0;
  for (const nlohmann::json& cache : topology.at("caches")) {
    if (cache.at("kind") == "instruction") continue;
    const auto size = cache.at("size_bytes").get<std::uint64_t>();
    const auto instances = std::max<std::uint64_t>(1, cache.at("instances").get<std::uint64_t>());
    const auto sharing =
        std::max<std::uint64_t>(1, cache.at("cores_per_instance").get<std::uint64_t>());
    // Threads on distinct cores, packed: they reach ceil(threads / sharing) instances.
    const std::uint64_t reached = std::min(instances, (threads + sharing - 1) / sharing);
    LevelWindow window;
    window.level = cache.at("name").get<std::string>();
    window.capacity_bytes = size * reached;
    // The plateau lies a factor 2 inside both capacities. A level less than 4 times its inner
    // one would have no window so: the margin shrinks to the fourth root of the ratio (an L3
    // sized at 5.55 MiB by the probe over a 2 MiB L2, on the 16-core node, keeps 2.6 .. 4.3 MiB).
    double margin = 2;
    if (inner > 0 && window.capacity_bytes > inner && window.capacity_bytes < 4 * inner) {
      margin =
          std::pow(static_cast<double>(window.capacity_bytes) / static_cast<double>(inner), 0.25);
    }
    window.lo_bytes = static_cast<std::uint64_t>(static_cast<double>(inner) * margin);
    window.hi_bytes =
        static_cast<std::uint64_t>(static_cast<double>(window.capacity_bytes) / margin);
    windows.push_back(window);
    inner = window.capacity_bytes;
    claimed_inner = cache.value("claimed_bytes", size) * reached;
  }
  LevelWindow dram;
  dram.level = "DRAM";
  // Beyond hwloc's claim for the last level too, where the probe sized it smaller (a last level's
  // replacement need not be LRU: streams a few times its size still hit in it), but no farther
  // than half the sweep's largest buffer, so that a claim far beyond the truth (a VM's 508 MiB)
  // leaves DRAM some points.
  dram.lo_bytes = 4 * inner;
  if (claimed_inner > inner) {
    std::uint64_t beyond = 4 * claimed_inner;
    if (topology.contains("max_buffer_bytes")) {
      beyond = std::min(beyond, topology["max_buffer_bytes"].get<std::uint64_t>() / 2);
    }
    dram.lo_bytes = std::max(dram.lo_bytes, beyond);
  }
  windows.push_back(dram);
  return windows;
}

nlohmann::json sized_topology_json(const nlohmann::json& context) {
  nlohmann::json topology = context.at("topology");
  if (!context.contains("sizing") || !context["sizing"].contains("levels")) return topology;
  nlohmann::json caches = nlohmann::json::array();
  for (const nlohmann::json& cache : topology.at("caches")) {
    nlohmann::json sized = cache;
    for (const nlohmann::json& level : context["sizing"]["levels"]) {
      if (cache.at("kind") == "instruction" || level.at("name") != cache.at("name")) continue;
      if (!level.value("seen", true)) sized = nullptr;
      if (!sized.is_null()) {
        sized["claimed_bytes"] = cache.at("size_bytes");  // hwloc's
        sized["size_bytes"] = level.at("bytes");
      }
    }
    if (!sized.is_null()) caches.push_back(sized);
  }
  topology["caches"] = caches;
  if (context["sizing"].contains("max_buffer_bytes")) {
    topology["max_buffer_bytes"] = context["sizing"]["max_buffer_bytes"];
  }
  return topology;
}

MemorySummary summarize_memory(const std::vector<ResultFile>& files) {
  MemorySummary summary;
  std::map<std::string, std::map<std::string, Collector>> latency, bandwidth;
  std::map<std::string, std::map<std::string, LevelWindow>> bandwidth_windows;
  std::vector<LevelWindow> single;
  for (const ResultFile& file : files) {
    const nlohmann::json& context = file.sonde_context();
    if (context.value("suite", "") != "memory") continue;
    const std::string where = file.path.string();
    if (!context.contains("topology")) throw input_error(where, "context.sonde lacks 'topology'");
    const nlohmann::json topology = sized_topology_json(context);
    if (single.empty()) {
      single = level_windows(topology, 1);
      summary.host = context.value("host", "");
      summary.cpu_model = topology.value("cpu_model", "");
      summary.topology = topology.value("summary", "");
      if (context.contains("clock") && context["clock"].is_object()) {
        summary.clock_hertz = context["clock"].at("hertz").get<double>();
        summary.clock_source = context["clock"].at("source").get<std::string>();
      }
    }
    for (const BenchmarkRecord& record : file.benchmarks) {
      if (!record.error_message.empty() && record.run_type != "aggregate")
        ++summary.failed_benchmarks;
    }
    for (const auto& [run_name, point] : points_by_run(file)) {
      const BenchmarkRecord& any = point.median ? *point.median : *point.iterations.front();
      const auto kernel = param_of<std::string>(any, param::kernel, where);
      const auto bytes = param_of<std::uint64_t>(any, param::working_set_bytes, where);
      const double cv = point.cv ? point.cv->counter("seconds_per_load")
                                       .value_or(point.cv->counter("bytes_per_second").value_or(0))
                                 : 0;
      if (kernel == "pointer_chase") {
        // A level's latency is one thread's; the chase with every core at once (loaded latency)
        // goes into the profile's random_chase curve, not into the plateau.
        if (any.params.contains(param::threads) &&
            param_of<unsigned>(any, param::threads, where) > 1)
          continue;
        const std::string variant = param_of<std::string>(any, param::pattern, where) + "." +
                                    param_of<std::string>(any, param::page_policy, where);
        const auto seconds = point_value(point, "seconds_per_load");
        if (!seconds) continue;
        const double cycles = point_value(point, "cycles_per_load").value_or(0);
        for (const LevelWindow& window : single) {
          if (window.contains(bytes)) {
            latency[window.level][variant].samples.push_back({bytes, *seconds, cycles, cv});
          }
        }
      } else if (any.params.contains(param::bytes_per_element)) {
        const auto threads = param_of<unsigned>(any, param::threads, where);
        if (std::find(summary.thread_counts.begin(), summary.thread_counts.end(), threads) ==
            summary.thread_counts.end()) {
          summary.thread_counts.push_back(threads);
        }
        const std::string key = fmt::format("{}/{}", kernel, threads);
        const auto rate = point_value(point, "bytes_per_second");
        if (!rate) continue;
        SweepSample sample{run_name, kernel, threads, bytes, *rate, *rate, *rate};
        for (const BenchmarkRecord* repetition : point.iterations) {
          // A repetition that moved nothing is no rate (and no interval's end).
          if (const auto r = repetition->counter("bytes_per_second"); r && *r > 0) {
            sample.min = std::min(sample.min, *r);
            sample.max = std::max(sample.max, *r);
          }
        }
        const std::vector<LevelWindow> windows = level_windows(topology, threads);
        // Between two caches' plateau windows (the outer one not DRAM's): an edge.
        for (std::size_t i = 0; i + 1 < windows.size(); ++i) {
          const LevelWindow &inner = windows[i], &outer = windows[i + 1];
          if (cache_plateau(inner) && cache_plateau(outer) && bytes > *inner.hi_bytes &&
              bytes < outer.lo_bytes) {
            summary.cache_edges.push_back(
                {sample, inner.level, outer.level, *inner.hi_bytes, outer.lo_bytes});
          }
        }
        for (const LevelWindow& window : windows) {
          if (!window.contains(bytes)) continue;
          auto& c = bandwidth[window.level][key];
          c.higher_is_better = true;
          c.samples.push_back({bytes, *rate, 0, cv});
          bandwidth_windows[window.level][key] = window;
          if (!window.hi_bytes) summary.dram_bandwidth.push_back(sample);
        }
      }
    }
  }
  if (single.empty()) throw input_error("results", "no memory-suite result among the files");
  std::sort(summary.thread_counts.begin(), summary.thread_counts.end());
  for (const LevelWindow& window : single) {
    LevelSummary level;
    level.window = window;
    const bool is_cache = window.hi_bytes.has_value();
    for (const auto& [variant, c] : latency[window.level]) {
      const auto [seconds, cycles] = c.plateaus(is_cache);
      level.latency_seconds[variant] = seconds;
      if (cycles) level.latency_cycles[variant] = *cycles;
    }
    for (const auto& [key, c] : bandwidth[window.level])
      level.bytes_per_second[key] = c.plateaus(is_cache).first;
    level.bandwidth_windows = bandwidth_windows[window.level];
    summary.levels.push_back(level);
  }
  return summary;
}

namespace {

std::string window_text(const LevelWindow& window) {
  if (!window.hi_bytes)
    return fmt::format(">= {}", format_bytes(static_cast<double>(window.lo_bytes)));
  if (window.lo_bytes > *window.hi_bytes) return "(none)";
  return fmt::format("{} - {}", format_bytes(static_cast<double>(window.lo_bytes)),
                     format_bytes(static_cast<double>(*window.hi_bytes)));
}

std::string latency_cell(const LevelSummary& level, const std::string& variant) {
  const auto it = level.latency_seconds.find(variant);
  if (it == level.latency_seconds.end()) return "-";
  std::string text = format_seconds(it->second.median);
  const auto cycles = level.latency_cycles.find(variant);
  if (cycles != level.latency_cycles.end())
    text += fmt::format(" {:.1f} cyc", cycles->second.median);
  return text;
}

// "flat to 5.66 MiB (4 of 7 sizes)" where the plateau ended inside the window.
std::string plateau_note(const LevelSummary& level) {
  const auto it = level.latency_seconds.find("random.base");
  if (it == level.latency_seconds.end() || it->second.sizes == it->second.sizes_in_window)
    return "";
  return fmt::format("flat only to {} ({} of {} sizes)",
                     format_bytes(static_cast<double>(it->second.flat_up_to_bytes)),
                     it->second.sizes, it->second.sizes_in_window);
}

std::string bandwidth_cell(const LevelSummary& level, const std::string& key) {
  const auto it = level.bytes_per_second.find(key);
  if (it == level.bytes_per_second.end()) return "-";
  return format_bytes_per_second(it->second.median);
}

}  // namespace

std::string format_memory_summary(const MemorySummary& summary) {
  std::string text = fmt::format("Memory hierarchy of {} ({})\n{}\n", summary.host,
                                 summary.cpu_model, summary.topology);
  if (summary.clock_hertz) {
    // One part's reading: the profile's clock is the median over every part, with their range.
    text += fmt::format("Core clock {} at one memory part's start ({})\n",
                        format_hertz(*summary.clock_hertz), summary.clock_source);
  } else {
    text += "Core clock unknown: latencies in seconds only\n";
  }
  text +=
      "\nLoad-to-use latency, dependent pointer chase (median over the working sets in each "
      "window)\n";
  text += fmt::format("{:<6} {:<20} {:<22} {:<22} {:<22} {}\n", "level", "window",
                      "random, base pages", "in-page, base pages", "random, huge pages", "note");
  for (const LevelSummary& level : summary.levels) {
    text += fmt::format("{:<6} {:<20} {:<22} {:<22} {:<22} {}\n", level.window.level,
                        window_text(level.window), latency_cell(level, "random.base"),
                        latency_cell(level, "in_page.base"), latency_cell(level, "random.huge"),
                        plateau_note(level));
  }
  for (unsigned threads : summary.thread_counts) {
    text += fmt::format(
        "\nBandwidth with {} thread{} (bytes as the kernel counts them; window for {} "
        "thread{})\n",
        threads, threads == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
    text += fmt::format("{:<6} {:<20}", "level", "window");
    for (const profile::StreamingKernel& kernel : profile::streaming_kernels())
      text += fmt::format(" {:>11}", kernel.name);
    text += "\n";
    for (const LevelSummary& level : summary.levels) {
      LevelWindow window = level.window;
      for (const auto& [key, w] : level.bandwidth_windows) {
        if (key.ends_with(fmt::format("/{}", threads))) window = w;
      }
      text += fmt::format("{:<6} {:<20}", level.window.level, window_text(window));
      for (const profile::StreamingKernel& kernel : profile::streaming_kernels())
        text += fmt::format(" {:>11}",
                            bandwidth_cell(level, fmt::format("{}/{}", kernel.name, threads)));
      text += "\n";
    }
    // Kernels outside the table's columns (the misaligned read and write in L1), on a line each.
    for (const LevelSummary& level : summary.levels) {
      for (const auto& [key, plateau] : level.bytes_per_second) {
        if (profile::bandwidth_threads(key) != static_cast<int>(threads) ||
            profile::streaming_kernel(profile::bandwidth_kernel(key)) != nullptr) {
          continue;
        }
        text += fmt::format("{:<6} {}: {}\n", level.window.level, profile::bandwidth_kernel(key),
                            format_bytes_per_second(plateau.median));
      }
    }
  }
  if (summary.failed_benchmarks > 0) {
    text += fmt::format("\n{} benchmark runs failed; see their error_message in the result files\n",
                        summary.failed_benchmarks);
  }
  return text;
}

nlohmann::json to_json(const MemorySummary& summary) {
  const auto plateaus = [](const std::map<std::string, Plateau>& map) {
    nlohmann::json json = nlohmann::json::object();
    for (const auto& [key, p] : map) {
      json[key] = {{"median", p.median},
                   {"min", p.min},
                   {"max", p.max},
                   {"sizes", p.sizes},
                   {"sizes_in_window", p.sizes_in_window},
                   {"flat_up_to_bytes", p.flat_up_to_bytes},
                   {"worst_cv", p.worst_cv}};
    }
    return json;
  };
  nlohmann::json levels = nlohmann::json::array();
  for (const LevelSummary& level : summary.levels) {
    nlohmann::json window = {{"lo_bytes", level.window.lo_bytes}};
    if (level.window.hi_bytes) window["hi_bytes"] = *level.window.hi_bytes;
    levels.push_back({{"level", level.window.level},
                      {"capacity_bytes", level.window.capacity_bytes},
                      {"window", window},
                      {"latency_seconds", plateaus(level.latency_seconds)},
                      {"latency_cycles", plateaus(level.latency_cycles)},
                      {"bytes_per_second", plateaus(level.bytes_per_second)}});
  }
  nlohmann::json json = {{"host", summary.host},
                         {"cpu_model", summary.cpu_model},
                         {"topology", summary.topology},
                         {"thread_counts", summary.thread_counts},
                         {"levels", levels},
                         {"failed_benchmarks", summary.failed_benchmarks}};
  if (summary.clock_hertz) {
    json["clock"] = {{"hertz", *summary.clock_hertz}, {"source", summary.clock_source}};
  }
  return json;
}

}  // namespace sonde::fit
