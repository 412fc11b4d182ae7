#include "characterize/drift.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

#include "characterize/run_plan.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/statistics.hpp"

namespace sonde::characterize {
namespace {

using microbench::MachineSample;

nlohmann::json to_json(const DriftProbe& probe) {
  nlohmann::json samples = nlohmann::json::array();
  for (const MachineSample& s : probe.samples) {
    samples.push_back({{"core", s.core},
                       {"threads", s.threads},
                       {"dram_triad_bytes_per_second", s.dram_triad_bytes_per_second},
                       {"triad_bytes", s.triad_bytes},
                       {"add_latency_seconds", s.add_latency_seconds},
                       {"l1_read_bytes_per_second", s.l1_read_bytes_per_second},
                       {"l1_bytes", s.l1_bytes}});
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

// A state this far from the run's usual one moves the figure to it; nearer, the figure is kept as
// measured (repetitions seconds apart differ by a few percent anyway).
constexpr double kWorthScaling = 0.05;
// A probe within microbench::kOneMemoryState of the part's own triad saw the part's state.
constexpr double kSameState = microbench::kOneMemoryState;

// The state the machine was in most of the run, from the probes' rates in time order. Where the
// sorted rates fall apart at a gap wider than one state spans (kSameState), the machine had two
// states and the median of all would lie between them, at a rate it never ran at: the median of
// the side with more probes, or with as many, the side of the last probe (the state the run ended
// in). Without such a gap, the median of all. `said` tells which.
double usual_state(const std::vector<double>& in_order, std::string& said) {
  std::vector<double> sorted = in_order;
  std::sort(sorted.begin(), sorted.end());
  std::size_t cut = 0;
  double widest = std::log(kSameState);
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const double gap = std::log(sorted[i] / sorted[i - 1]);
    if (gap > widest) {
      widest = gap;
      cut = i;
    }
  }
  if (cut == 0) {
    const double all = sonde::median(sorted);
    said = fmt::format("median {}", rate_text(all));
    return all;
  }
  const std::vector<double> lower(sorted.begin(), sorted.begin() + static_cast<long>(cut));
  const std::vector<double> upper(sorted.begin() + static_cast<long>(cut), sorted.end());
  const bool take_upper =
      upper.size() != lower.size() ? upper.size() > lower.size() : in_order.back() >= sorted[cut];
  const double usual = sonde::median(take_upper ? upper : lower);
  said = fmt::format(
      "usual {}: the probes fall into two states apart at {} .. {}, and {} of them in the {} one"
      "{}",
      rate_text(usual), rate_text(sorted[cut - 1]), rate_text(sorted[cut]),
      (take_upper ? upper : lower).size(), take_upper ? "faster" : "slower",
      upper.size() == lower.size() ? ", as many as in the other, the last among them" : "");
  return usual;
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
      // Logs written before the probe kept its size have none: 0, not known.
      if (s.contains("triad_bytes"))
        sample.triad_bytes = field<std::uint64_t>(s, "triad_bytes", at, path);
      sample.add_latency_seconds = field<double>(s, "add_latency_seconds", at, path);
      // Logs written before the probe read L1 have neither: 0, not timed.
      if (s.contains("l1_read_bytes_per_second")) {
        sample.l1_read_bytes_per_second = field<double>(s, "l1_read_bytes_per_second", at, path);
        sample.l1_bytes = field<std::uint64_t>(s, "l1_bytes", at, path);
      }
      if (sample.threads == 0 || !(sample.dram_triad_bytes_per_second >= 0) ||
          !(sample.add_latency_seconds >= 0) || !(sample.l1_read_bytes_per_second >= 0)) {
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

namespace {

// What the probes say of the machine for a thread count's part.
struct PartState {
  unsigned threads = 1;             // the probe's samples taken: 1 core, or `most at once`
  double slowest = 0, fastest = 0;  // over the run
  double state = 0;  // the machine's as the part measured (geometric mean of a range)
  double state_low = 0, state_high = 0;
  double typical = 0;      // the run's usual state (usual_state)
  bool straddled = false;  // the part's own triad matched none of the probes beside it
  std::string said;        // what the probes read, for the notes
  double scale() const { return typical / state; }
  bool moved() const { return !straddled && std::abs(scale() - 1) >= kWorthScaling; }
};

// How far apart the kernels of a q-thread part are in their state: the largest over the smallest
// of their q-thread figures each divided by its one-thread figure. No value with fewer than two
// kernels measured both ways.
std::optional<double> kernels_spread(const std::map<std::string, profile::Quantity>& as_measured,
                                     int q) {
  std::vector<double> ratios;
  for (const auto& [key, quantity] : as_measured) {
    if (profile::bandwidth_threads(key) != q || !(quantity.value > 0)) continue;
    const auto one = as_measured.find(profile::bandwidth_kernel(key) + "/1");
    if (one != as_measured.end() && one->second.value > 0)
      ratios.push_back(quantity.value / one->second.value);
  }
  if (ratios.size() < 2) return std::nullopt;
  return *std::max_element(ratios.begin(), ratios.end()) /
         *std::min_element(ratios.begin(), ratios.end());
}

std::optional<PartState> part_state(const std::vector<DriftProbe>& probes,
                                    const std::map<std::string, profile::Quantity>& as_measured,
                                    int q, unsigned most_at_once) {
  PartState p;
  p.threads = q == 1 ? 1 : most_at_once;
  const std::vector<double> all = triads(probes, p.threads);
  if (all.size() < 2) return std::nullopt;
  std::vector<double> around = triads(probes, p.threads, fmt::format("memory-bandwidth-t{}", q));
  if (around.empty()) around = all;  // no probe next to its part: the whole run's probes
  p.slowest = *std::min_element(all.begin(), all.end());
  p.fastest = *std::max_element(all.begin(), all.end());
  std::string usual;
  p.typical = usual_state(all, usual);
  // The state the part measured in: where the level's own triad with q threads (the probe's
  // kernel) is, the probe beside the part nearest it; without it, either end of theirs.
  const double around_low = *std::min_element(around.begin(), around.end());
  const double around_high = *std::max_element(around.begin(), around.end());
  p.state_low = around_low;
  p.state_high = around_high;
  std::string state =
      fmt::format("{} .. {} GB/s around its part", rate_text(around_low), rate_text(around_high));
  const auto triad = as_measured.find(fmt::format("triad/{}", q));
  // Where the part's state is not known: nothing is moved, and each interval spans every state
  // the run saw.
  const auto spans_every_state = [&p](std::string why) {
    p.straddled = true;
    p.state_low = p.slowest;
    p.state_high = p.fastest;
    return why;
  };
  if (static_cast<unsigned>(q) != p.threads) {
    // The probes took another number of cores at once than the part's threads (on a many-core
    // node, at most 8 stand in for 2 to 16): their rates are not the part's, so where among
    // their states the part ran is unknown. A 16-core node's 2-thread triad (23.7 GB/s) set
    // against 8 cores' probes (51 .. 79) was taken for a slow state and moved to 72. Nothing is
    // moved, as for a part that changed state.
    state = spans_every_state(fmt::format(
        "the probes took {} cores at once, not {}: where the part ran among their states is not "
        "known, so nothing was moved",
        p.threads, q));
  } else if (triad != as_measured.end() && triad->second.value > 0) {
    const double measured = triad->second.value;
    const double nearest = *std::min_element(around.begin(), around.end(), [&](double a, double b) {
      return std::abs(std::log(a / measured)) < std::abs(std::log(b / measured));
    });
    if (std::abs(std::log(nearest / measured)) <= std::log(kSameState)) {
      p.state_low = p.state_high = nearest;
      state = fmt::format("the part's triad read {} GB/s, the probe beside it nearest that {}",
                          rate_text(measured), rate_text(nearest));
    } else if (const auto spread = kernels_spread(as_measured, q);
               spread && *spread < std::sqrt(p.fastest / p.slowest)) {
      // No probe beside the part saw its state, but its kernels agree with each other: each
      // with q threads the same multiple of its one-thread figure, to within half the gap
      // between the run's states (a part that changed state has kernels on both sides of it).
      // The part ran in one state, the one its own triad shows.
      p.state_low = p.state_high = measured;
      state = fmt::format(
          "the part's triad read {} GB/s, no probe beside it within {:.0f}% of that ({} .. {}), "
          "but its kernels agree (their {}-thread figures spread {:.2f}-fold over their "
          "one-thread ones, less than the square root of the states' ratio): the part's state "
          "is its own triad's",
          rate_text(measured), 100 * (kSameState - 1), rate_text(around_low),
          rate_text(around_high), q, *spread);
    } else {
      // The machine changed state during the part: its kernels may each have run in another.
      state = spans_every_state(fmt::format(
          "the part's triad read {} GB/s, no probe beside it within {:.0f}% of that ({} .. {}): "
          "the state changed during the part, so nothing was moved",
          rate_text(measured), 100 * (kSameState - 1), rate_text(around_low),
          rate_text(around_high)));
    }
  }
  p.state = std::sqrt(p.state_low * p.state_high);
  const std::string probed = p.threads == 1
                                 ? std::string("one core at a time")
                                 : fmt::format("{} cores at once{}", p.threads,
                                               static_cast<unsigned>(q) == p.threads
                                                   ? ""
                                                   : fmt::format(", standing in for {}", q));
  p.said = fmt::format(
      "the run's {} probes over {} read the DRAM triad ({}) at {} .. {} GB/s, "
      "{}; {}",
      probes.size(), format_duration(probes.back().seconds - probes.front().seconds), probed,
      rate_text(p.slowest), rate_text(p.fastest), usual, state);
  return p;
}

// `quantity`'s interval; one without an interval spans its value alone.
profile::Interval interval_or_value(const profile::Quantity& quantity) {
  return quantity.interval.value_or(profile::Interval{quantity.value, quantity.value, 1});
}

// Whether `quantity`'s interval already takes in low .. high.
bool takes_in(const profile::Quantity& quantity, double low, double high) {
  const profile::Interval interval = interval_or_value(quantity);
  return low >= interval.low && high <= interval.high;
}

// Widens `quantity`'s interval to take in low .. high, a range of states seen and no longer a
// confidence level, and adds `why` to its note.
void widen(profile::Quantity& quantity, double low, double high, const std::string& why) {
  profile::Interval interval = interval_or_value(quantity);
  interval.low = std::min(interval.low, low);
  interval.high = std::max(interval.high, high);
  interval.level = 1;
  quantity.interval = interval;
  quantity.note += fmt::format("{}{}", quantity.note.empty() ? "" : "; ", why);
}

// The first cache level's bandwidths against the probes' in-core reads (one core at a time). On a
// 2-core Zen 3 guest a read within L1 went from 124 to 205 GB/s from one second to the next while
// the add chain mostly held, and an L1-bound blocked multiply took 0.96 to 1.43 s a repetition: a
// co-tenant the guest cannot see shares the core's L1. A level measured in a few seconds carries
// an interval that says nothing of that, so each of its bandwidths' intervals widens to what the
// reads saw: value x slowest / median .. value x fastest / median. The values stay: a read is a
// snapshot of a state that changes within seconds, and moving the multiply's L1 rates by the reads
// just before and after its runs would have put its predictions further off, not nearer.
void widen_first_level(profile::Profile& profile, const std::vector<DriftProbe>& probes,
                       std::vector<std::string>& lines) {
  if (profile.memory.size() < 2) return;  // the first level is the memory: no cache to probe
  std::vector<double> reads;
  for (const DriftProbe& probe : probes) {
    for (const MachineSample& s : probe.samples) {
      if (s.threads == 1 && s.l1_bytes > 0 && s.l1_read_bytes_per_second > 0) {
        reads.push_back(s.l1_read_bytes_per_second);
      }
    }
  }
  if (reads.size() < 3) return;  // too few to say how far it wanders
  const auto [slowest, fastest] = std::minmax_element(reads.begin(), reads.end());
  const double usual = sonde::median(reads);
  const double low_ratio = *slowest / usual, high_ratio = *fastest / usual;
  const std::string said =
      fmt::format("the probes' in-core read (one core, {} of them) {} .. {} GB/s, median {} GB/s",
                  reads.size(), rate_text(*slowest), rate_text(*fastest), rate_text(usual));
  profile::MemoryLevel& first = profile.memory.front();
  std::vector<std::string> widened;
  for (auto& [key, quantity] : first.bandwidth) {
    if (!(quantity.value > 0)) continue;
    const double low = quantity.value * low_ratio, high = quantity.value * high_ratio;
    if (takes_in(quantity, low, high)) continue;
    widen(quantity, low, high, "interval widened to the in-core drift (derived): " + said);
    widened.push_back(key);
  }
  if (widened.empty()) return;
  lines.push_back(fmt::format(
      "{} bandwidths: {}; intervals widened to {:.2f} .. {:.2f} of each as measured: {}",
      first.name, fmt::join(widened, ", "), low_ratio, high_ratio, said));
}

}  // namespace

std::vector<std::string> account_for_drift(profile::Profile& profile,
                                           const std::vector<DriftProbe>& probes) {
  std::vector<std::string> lines;
  if (profile.memory.empty() || probes.size() < 2) return lines;
  unsigned most_at_once = 0;
  for (const DriftProbe& probe : probes) {
    for (const MachineSample& s : probe.samples) most_at_once = std::max(most_at_once, s.threads);
  }
  auto& bandwidth = profile.memory.back().bandwidth;
  // The figures as measured: a triad/q moved below still tells its thread count's state.
  const std::map<std::string, profile::Quantity> as_measured = bandwidth;
  std::map<int, std::optional<PartState>> states;
  std::map<int, std::vector<std::string>> changed;  // by thread count: the kernels changed
  // One thread first: a figure with q threads is bounded by q times the same kernel's one.
  for (const bool one_thread : {true, false}) {
    for (auto& [key, quantity] : bandwidth) {
      const int q = profile::bandwidth_threads(key);
      if (q <= 0 || (q == 1) != one_thread || !(quantity.value > 0) ||
          (q > 1 && most_at_once < 2)) {
        continue;
      }
      if (!states.count(q)) states[q] = part_state(probes, as_measured, q, most_at_once);
      if (!states[q]) continue;
      const PartState& p = *states[q];
      const double measured = quantity.value;
      const double low = measured * p.slowest / p.state_high;
      double high = measured * p.fastest / p.state_low;
      // The same kernel with one thread, as this loop's first pass left it.
      const auto one = bandwidth.find(profile::bandwidth_kernel(key) + "/1");
      const bool has_one = q > 1 && one != bandwidth.end() && one->second.value > 0;
      // In no state do q threads get more than q times what one gets at its best.
      if (has_one) {
        const double best_alone = one->second.interval
                                      ? std::max(one->second.interval->high, one->second.value)
                                      : one->second.value;
        high = std::min(high, std::max(measured, q * best_alone));
      }
      // Moved to the run's usual state, with several threads only as far as the node's memory
      // bounds the kernel (profile::move_between_states).
      double moved = measured;
      std::string bound;
      if (p.moved()) {
        const auto triad = as_measured.find(fmt::format("triad/{}", q));
        const profile::StateMove move =
            profile::move_between_states(profile::bandwidth_kernel(key), q, measured, p.scale(),
                                         has_one ? &one->second : nullptr,
                                         triad != as_measured.end() ? &triad->second : nullptr);
        moved = move.value;
        bound = move.bound;
      }
      const bool is_moved = moved != measured;
      if (!is_moved && takes_in(quantity, low, high)) continue;
      const std::string note =
          is_moved ? fmt::format(
                         "value moved to the run's usual state (derived): measured {} "
                         "GB/s, x {} / {} GB/s{}; ",
                         rate_text(measured), rate_text(p.typical), rate_text(p.state), bound)
                   : std::string();
      // Widened about the value as measured, then moved.
      widen(quantity, low, high,
            note + "interval widened to the machine's drift (derived): " + p.said);
      if (is_moved) {
        quantity.value = moved;
        quantity.origin = profile::Origin::derived;
      }
      changed[q].push_back(fmt::format("{} {}{}", profile::bandwidth_kernel(key),
                                       rate_text(measured),
                                       is_moved ? " -> " + rate_text(moved) : std::string()));
    }
  }
  widen_first_level(profile, probes, lines);
  for (const auto& [q, kernels] : changed) {
    const PartState& p = *states[q];
    lines.push_back(
        fmt::format("DRAM bandwidths with {} thread{} (GB/s): {}; intervals widened to "
                    "{:.2f} .. {:.2f} of each as measured: {}",
                    q, q == 1 ? "" : "s", fmt::join(kernels, ", "), p.slowest / p.state_high,
                    p.fastest / p.state_low, p.said));
  }
  return lines;
}

std::vector<profile::UsualState> usual_states(const std::vector<DriftProbe>& probes) {
  unsigned most_at_once = 0;
  for (const DriftProbe& probe : probes) {
    for (const MachineSample& s : probe.samples) most_at_once = std::max(most_at_once, s.threads);
  }
  std::vector<unsigned> thread_counts{1};
  if (most_at_once > 1) thread_counts.push_back(most_at_once);
  std::vector<profile::UsualState> states;
  for (const unsigned threads : thread_counts) {
    // One size, known: a state read at another size may be that size's (0: a sample from before
    // the size was kept). Two probes at least, as account_for_drift asks.
    std::set<std::uint64_t> sizes;
    std::size_t probed = 0;
    for (const DriftProbe& probe : probes) {
      bool here = false;
      for (const MachineSample& s : probe.samples) {
        if (s.threads != threads || !(s.dram_triad_bytes_per_second > 0)) continue;
        sizes.insert(s.triad_bytes);
        here = true;
      }
      probed += here ? 1 : 0;
    }
    if (probed < 2 || sizes.size() != 1 || *sizes.begin() == 0) continue;
    const std::uint64_t bytes = *sizes.begin();
    const std::vector<double> rates = triads(probes, threads);
    std::string said;
    profile::UsualState state;
    state.threads = threads;
    state.triad_bytes = bytes;
    state.dram_triad.value = usual_state(rates, said);
    state.dram_triad.unit = "B/s";
    state.dram_triad.origin = profile::Origin::measured;
    state.dram_triad.interval = profile::Interval{*std::min_element(rates.begin(), rates.end()),
                                                  *std::max_element(rates.begin(), rates.end()), 1};
    state.dram_triad.sources = {"drift.json"};
    state.dram_triad.note = fmt::format(
        "the run's {} probes over {} read the DRAM triad ({}) at {} .. {} GB/s, {}", probed,
        format_duration(probes.back().seconds - probes.front().seconds),
        threads == 1 ? std::string("one core at a time") : fmt::format("{} cores at once", threads),
        rate_text(state.dram_triad.interval->low), rate_text(state.dram_triad.interval->high),
        said);
    states.push_back(std::move(state));
  }
  return states;
}

std::string format_drift(const std::vector<DriftProbe>& probes) {
  if (probes.empty()) return "";
  std::string out =
      "the machine while it was measured (DRAM triad in GB/s; add latency; the in-core read of "
      "the first cache):\n";
  for (const DriftProbe& probe : probes) {
    std::vector<std::string> alone, together;
    double add = 0;
    std::vector<std::string> in_core;
    for (const MachineSample& s : probe.samples) {
      if (s.threads == 1) {
        alone.push_back(
            fmt::format("core {} {}", s.core, rate_text(s.dram_triad_bytes_per_second)));
        add = std::max(add, s.add_latency_seconds);
        if (s.l1_bytes > 0) in_core.push_back(rate_text(s.l1_read_bytes_per_second));
      } else {
        together.push_back(
            fmt::format("{} at once {}", s.threads, rate_text(s.dram_triad_bytes_per_second)));
      }
    }
    out += fmt::format(
        "  {:>7}  {:<36} {}{}{}  add {:.3g} ns{}\n",
        format_duration(probe.seconds - probes.front().seconds),
        probe.after.empty() ? "(start)" : "after " + probe.after, fmt::join(alone, ", "),
        together.empty() ? "" : "; ", fmt::join(together, ", "), add * 1e9,
        in_core.empty() ? std::string()
                        : fmt::format("  in-core read {}", fmt::join(in_core, ", ")));
  }
  return out;
}

}  // namespace sonde::characterize
