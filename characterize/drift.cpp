#include "characterize/drift.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>

#include "characterize/run_plan.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sonde::characterize {
namespace {

using microbench::MachineSample;

constexpr std::uint64_t kMiB = 1u << 20;

nlohmann::json to_json(const DriftProbe& probe) {
  nlohmann::json samples = nlohmann::json::array();
  for (const MachineSample& s : probe.samples) {
    samples.push_back({{"core", s.core},
                       {"threads", s.threads},
                       {"dram_triad_bytes_per_second", s.dram_triad_bytes_per_second},
                       {"add_latency_seconds", s.add_latency_seconds}});
  }
  return {{"seconds", probe.seconds},
          {"utc", probe.utc},
          {"after", probe.after},
          {"before", probe.before},
          {"samples", samples}};
}

// A field of the log: present, of the type asked for, else an input Error naming it.
template <class T>
T field(const nlohmann::json& object, const char* name, const std::string& where,
        const std::filesystem::path& path) {
  const auto it = object.find(name);
  bool ok = it != object.end();
  if constexpr (std::is_same_v<T, std::string>) {
    ok = ok && it->is_string();
  } else if constexpr (std::is_floating_point_v<T>) {
    ok = ok && it->is_number();
  } else {
    ok = ok && it->is_number_unsigned();
  }
  if (!ok) {
    const char* expected = std::is_same_v<T, std::string> ? "a string"
                           : std::is_floating_point_v<T>  ? "a number"
                                                          : "a whole number >= 0";
    throw input_error(path.string(),
                      fmt::format("{}.{}: missing or not {}", where, name, expected));
  }
  return it->get<T>();
}

std::string rate_text(double bytes_per_second) {
  return fmt::format("{:.1f}", bytes_per_second / 1e9);
}

// The triad rates of the samples with `threads` threads (1: one core alone), positive ones only.
std::vector<double> triads(const std::vector<DriftProbe>& probes, unsigned threads,
                           const std::string& around_part = "") {
  std::vector<double> rates;
  for (const DriftProbe& probe : probes) {
    if (!around_part.empty() && probe.after != around_part && probe.before != around_part) continue;
    for (const MachineSample& s : probe.samples) {
      if (s.threads == threads && s.dram_triad_bytes_per_second > 0 &&
          std::isfinite(s.dram_triad_bytes_per_second)) {
        rates.push_back(s.dram_triad_bytes_per_second);
      }
    }
  }
  return rates;
}

}  // namespace

std::filesystem::path drift_log_path(const std::filesystem::path& run_folder) {
  return run_folder / "drift.json";
}

std::vector<DriftProbe> read_drift_log(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path.string(), fmt::format("not JSON: {}", e.what()));
  }
  if (!document.is_object() || !document.contains("probes") || !document["probes"].is_array()) {
    throw input_error(path.string(), "expected an object with an array 'probes'");
  }
  std::vector<DriftProbe> probes;
  for (std::size_t i = 0; i < document["probes"].size(); ++i) {
    const nlohmann::json& entry = document["probes"][i];
    const std::string where = fmt::format("probes[{}]", i);
    if (!entry.is_object()) throw input_error(path.string(), where + ": not an object");
    DriftProbe probe;
    probe.seconds = field<double>(entry, "seconds", where, path);
    probe.utc = field<std::string>(entry, "utc", where, path);
    probe.after = field<std::string>(entry, "after", where, path);
    probe.before = field<std::string>(entry, "before", where, path);
    if (!entry.contains("samples") || !entry["samples"].is_array()) {
      throw input_error(path.string(), where + ".samples: missing or not an array");
    }
    for (std::size_t j = 0; j < entry["samples"].size(); ++j) {
      const nlohmann::json& s = entry["samples"][j];
      const std::string at = fmt::format("{}.samples[{}]", where, j);
      if (!s.is_object()) throw input_error(path.string(), at + ": not an object");
      MachineSample sample;
      sample.core = field<unsigned>(s, "core", at, path);
      sample.threads = field<unsigned>(s, "threads", at, path);
      sample.dram_triad_bytes_per_second =
          field<double>(s, "dram_triad_bytes_per_second", at, path);
      sample.add_latency_seconds = field<double>(s, "add_latency_seconds", at, path);
      if (sample.threads == 0 || !(sample.dram_triad_bytes_per_second >= 0) ||
          !(sample.add_latency_seconds >= 0)) {
        throw input_error(path.string(),
                          at + ": expected threads >= 1 and rates and latencies >= 0");
      }
      probe.samples.push_back(sample);
    }
    probes.push_back(std::move(probe));
  }
  return probes;
}

void append_drift_log(const std::filesystem::path& path, const DriftProbe& probe) {
  nlohmann::json probes = nlohmann::json::array();
  for (const DriftProbe& earlier : read_drift_log(path)) probes.push_back(to_json(earlier));
  probes.push_back(to_json(probe));
  write_file_atomically(path, nlohmann::json{{"probes", probes}}.dump(2) + "\n");
}

std::uint64_t drift_triad_bytes(std::uint64_t largest_cache_bytes, std::uint64_t usable_bytes) {
  const std::uint64_t wanted =
      std::clamp<std::uint64_t>(8 * largest_cache_bytes, 192 * kMiB, 2048 * kMiB);
  const std::uint64_t room = usable_bytes > 0 ? std::max(usable_bytes / 8, 24 * kMiB) : wanted;
  return std::min(wanted, room);
}

std::vector<std::string> widen_for_drift(profile::Profile& profile,
                                         const std::vector<DriftProbe>& probes) {
  std::vector<std::string> lines;
  if (profile.memory.empty() || probes.size() < 2) return lines;
  unsigned most_at_once = 0;
  for (const DriftProbe& probe : probes) {
    for (const MachineSample& s : probe.samples) most_at_once = std::max(most_at_once, s.threads);
  }
  const double span = probes.back().seconds - probes.front().seconds;
  std::map<int, std::string> widened;  // by thread count: the line that says so
  for (auto& [key, quantity] : profile.memory.back().bandwidth) {
    const int q = profile::bandwidth_threads(key);
    if (q <= 0 || !(quantity.value > 0) || (q > 1 && most_at_once < 2)) continue;
    // One core alone for one thread; the most cores the probe ran at once for more (with fewer
    // or more threads than that, the note says so).
    const unsigned threads = q == 1 ? 1 : most_at_once;
    const std::vector<double> all = triads(probes, threads);
    if (all.size() < 2) continue;
    std::vector<double> around = triads(probes, threads, fmt::format("memory-bandwidth-t{}", q));
    if (around.empty()) around = all;  // no probe next to its part: the whole run's probes
    const auto [slowest, fastest] = std::minmax_element(all.begin(), all.end());
    // The state the part measured in: where the level's own triad with q threads (the probe's
    // kernel) is, the probe beside the part nearest it; without it, either end of theirs.
    double state_low = *std::min_element(around.begin(), around.end());
    double state_high = *std::max_element(around.begin(), around.end());
    std::string state =
        fmt::format("{} .. {} GB/s around its part", rate_text(state_low), rate_text(state_high));
    const auto triad = profile.memory.back().bandwidth.find(fmt::format("triad/{}", q));
    if (triad != profile.memory.back().bandwidth.end() && triad->second.value > 0) {
      const double measured = triad->second.value;
      const double nearest =
          *std::min_element(around.begin(), around.end(), [&](double a, double b) {
            return std::abs(std::log(a / measured)) < std::abs(std::log(b / measured));
          });
      state_low = state_high = nearest;
      state = fmt::format("the part's triad read {} GB/s, the probe beside it nearest that {}",
                          rate_text(measured), rate_text(nearest));
    }
    const double low = quantity.value * *slowest / state_high;
    const double high = quantity.value * *fastest / state_low;
    profile::Interval interval =
        quantity.interval.value_or(profile::Interval{quantity.value, quantity.value, 1});
    if (low >= interval.low && high <= interval.high) continue;
    interval.low = std::min(interval.low, low);
    interval.high = std::max(interval.high, high);
    interval.level = 1;  // a range of states seen, no longer a confidence level
    quantity.interval = interval;
    const std::string probed = threads == 1
                                   ? std::string("one core at a time")
                                   : fmt::format("{} cores at once{}", threads,
                                                 static_cast<unsigned>(q) == threads
                                                     ? ""
                                                     : fmt::format(", standing in for {}", q));
    const std::string said = fmt::format(
        "the run's {} probes over {} read the DRAM triad ({}) at {} .. {} GB/s; {}", probes.size(),
        format_duration(span), probed, rate_text(*slowest), rate_text(*fastest), state);
    quantity.note += fmt::format("{}interval widened to the machine's drift (derived): {}",
                                 quantity.note.empty() ? "" : "; ", said);
    widened.emplace(
        q, fmt::format("DRAM bandwidths with {} thread{}: intervals widened to {:.2f} "
                       ".. {:.2f} of each figure: {}",
                       q, q == 1 ? "" : "s", *slowest / state_high, *fastest / state_low, said));
  }
  for (auto& [q, line] : widened) lines.push_back(std::move(line));
  return lines;
}

std::string format_drift(const std::vector<DriftProbe>& probes) {
  if (probes.empty()) return "";
  std::string out = "the machine while it was measured (DRAM triad in GB/s; add latency):\n";
  for (const DriftProbe& probe : probes) {
    std::vector<std::string> alone, together;
    double add = 0;
    for (const MachineSample& s : probe.samples) {
      if (s.threads == 1) {
        alone.push_back(
            fmt::format("core {} {}", s.core, rate_text(s.dram_triad_bytes_per_second)));
        add = std::max(add, s.add_latency_seconds);
      } else {
        together.push_back(
            fmt::format("{} at once {}", s.threads, rate_text(s.dram_triad_bytes_per_second)));
      }
    }
    out += fmt::format("  {:>7}  {:<36} {}{}{}  add {:.3g} ns\n",
                       format_duration(probe.seconds - probes.front().seconds),
                       probe.after.empty() ? "(start)" : "after " + probe.after,
                       fmt::join(alone, ", "), together.empty() ? "" : "; ",
                       fmt::join(together, ", "), add * 1e9);
  }
  return out;
}

}  // namespace sonde::characterize
