#include "check/probe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <vector>

#include "check/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "microbench/memory_limits.hpp"
#include "microbench/topology.hpp"

namespace sonde::check {
namespace {

constexpr double kDriftWorthANote = 0.05;
// Probes before and after the runs further apart than this saw the state move during them.
constexpr double kSameState = microbench::kOneMemoryState;

std::string rate_text(double bytes_per_second) {
  return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}
std::string time_text(double seconds) { return fmt::format("{:.3g} ns", seconds * 1e9); }

// Where a sample is 5% or more faster or slower than the quantity's value: a note with the samples'
// range, the value and its interval, and their mean speed; else "". Inside the interval or not: a
// profile's interval may hold the machine's drift over its characterization (characterize/drift),
// and a machine now in one of its other states is still worth saying.
template <class Field, class Format>
std::string off_the_profile(const std::string& what, const profile::Quantity* q,
                            const std::vector<MachineSample>& samples, Field field, Format format,
                            bool higher_is_faster, const std::string& whose = "the profile's") {
  if (q == nullptr || samples.empty() || !(q->value > 0)) return "";
  double low = field(samples.front()), high = low, sum = 0;
  for (const MachineSample& s : samples) {
    if (!(field(s) > 0) || !std::isfinite(field(s))) return "";  // a probe that measured nothing
    low = std::min(low, field(s));
    high = std::max(high, field(s));
    sum += field(s);
  }
  const double q_low = q->interval ? std::min(q->interval->low, q->value) : q->value;
  const double q_high = q->interval ? std::max(q->interval->high, q->value) : q->value;
  const auto speed_of = [&](double now) {
    return higher_is_faster ? now / q->value : q->value / now;
  };
  // With every core within 5% of the profile's value there is nothing worth a note, even outside
  // an interval of a few repetitions seconds apart.
  if (std::abs(speed_of(low) - 1) < kDriftWorthANote &&
      std::abs(speed_of(high) - 1) < kDriftWorthANote) {
    return "";
  }
  const double speed = speed_of(sum / static_cast<double>(samples.size()));
  const std::string range = low == high ? format(low) : format(low) + " .. " + format(high);
  const std::string interval =
      q->interval ? fmt::format(" [{} .. {}]", format(q_low), format(q_high)) : std::string();
  return fmt::format("machine now: {} {}, {} {}{}: {:.2f} times as fast on average", what, range,
                     whose, format(q->value), interval, speed);
}

}  // namespace

std::uint64_t memory_available() {
  try {
    return microbench::usable_memory(microbench::Topology::from_system()).bytes;
  } catch (const Error&) {
    return 0;  // nothing known: probe_bytes keeps to its floor
  }
}

std::uint64_t probe_bytes(const profile::Profile& target, std::uint64_t memory_bytes) {
  for (const profile::UsualState& state : target.usual_state) {
    if (state.threads == 1 && (memory_bytes == 0 || state.triad_bytes <= memory_bytes / 8)) {
      return state.triad_bytes;
    }
  }
  double largest = 0;
  for (const profile::MemoryLevel& level : target.memory) {
    if (level.detected_capacity) {
      largest = std::max(largest, level.detected_capacity->value);
    } else if (level.capacity_bytes) {
      largest = std::max(largest, static_cast<double>(*level.capacity_bytes));
    }
  }
  return microbench::dram_probe_bytes(largest, memory_bytes);
}

std::uint64_t probe_chase_bytes(const profile::Profile& target, std::uint64_t memory_bytes) {
  // A size the profile measured, so that there is a figure to set the probe against.
  std::uint64_t largest = 0;
  for (const profile::RandomChasePoint& point : target.random_chase) {
    if (point.threads == 1 && (memory_bytes == 0 || point.working_set_bytes <= memory_bytes / 8)) {
      largest = std::max(largest, point.working_set_bytes);
    }
  }
  return largest;
}

std::uint64_t probe_l1_bytes(const profile::Profile& target) {
  if (target.memory.size() < 2) return 0;  // no cache: the first level is the memory
  const profile::MemoryLevel& first = target.memory.front();
  double capacity = first.capacity_bytes ? static_cast<double>(*first.capacity_bytes) : 0.0;
  if (first.detected_capacity && first.detected_capacity->value > 0) {
    capacity = capacity > 0 ? std::min(capacity, first.detected_capacity->value)
                            : first.detected_capacity->value;
  }
  return microbench::l1_probe_bytes(capacity);
}

unsigned probe_line_bytes(const profile::Profile& target) {
  if (!target.memory.empty() && target.memory.front().line_bytes) {
    return static_cast<unsigned>(*target.memory.front().line_bytes);
  }
  return 64;
}

const profile::Quantity* profile_dram_chase(const profile::Profile& target, std::uint64_t bytes) {
  for (const profile::RandomChasePoint& point : target.random_chase) {
    if (point.threads == 1 && point.working_set_bytes == bytes) return &point.seconds;
  }
  return nullptr;
}

const profile::Quantity* profile_dram_triad(const profile::Profile& target, unsigned threads) {
  if (target.memory.empty()) return nullptr;
  const auto& bandwidth = target.memory.back().bandwidth;
  const auto it = bandwidth.find(fmt::format("triad/{}", threads));
  return it == bandwidth.end() ? nullptr : &it->second;
}

const profile::Quantity* profile_add_latency(const profile::Profile& target) {
  const auto it = target.compute.kernels.find("add.latency");
  return it == target.compute.kernels.end() ? nullptr : &it->second;
}

const profile::Quantity* profile_l1_read(const profile::Profile& target) {
  if (target.memory.size() < 2) return nullptr;
  const auto& bandwidth = target.memory.front().bandwidth;
  const auto it = bandwidth.find("read/1");
  return it == bandwidth.end() ? nullptr : &it->second;
}

const profile::UsualState* usual_state_for(const profile::Profile& target, unsigned threads,
                                           const std::vector<MachineSample>& samples) {
  const auto state =
      std::find_if(target.usual_state.begin(), target.usual_state.end(),
                   [&](const profile::UsualState& u) { return u.threads == threads; });
  if (state == target.usual_state.end() || !(state->dram_triad.value > 0)) return nullptr;
  bool any = false;
  for (const MachineSample& s : samples) {
    if (s.threads != threads) continue;
    any = true;
    // Within 1%: cores at once split the size among them, each in whole elements.
    const double size = static_cast<double>(s.triad_bytes);
    const double wanted = static_cast<double>(state->triad_bytes);
    if (!(std::abs(size - wanted) <= 0.01 * wanted)) return nullptr;
  }
  return any ? &*state : nullptr;
}

std::vector<std::string> drift_notes(const profile::Profile& target,
                                     const std::vector<MachineSample>& samples) {
  std::vector<std::string> notes;
  std::vector<MachineSample> alone;
  std::map<unsigned, std::vector<MachineSample>> at_once;  // by how many cores at once
  for (const MachineSample& s : samples) (s.threads > 1 ? at_once[s.threads] : alone).push_back(s);
  const auto triad = [](const MachineSample& s) { return s.dram_triad_bytes_per_second; };
  // Against the profile's probes where they were of the samples' size, else its triad.
  const auto triad_note = [&](const std::string& what, unsigned threads,
                              const std::vector<MachineSample>& group) {
    if (const profile::UsualState* usual = usual_state_for(target, threads, group)) {
      return off_the_profile(what, &usual->dram_triad, group, triad, rate_text, true,
                             "the profile's probes' usual");
    }
    return off_the_profile(what, profile_dram_triad(target, threads), group, triad, rate_text,
                           true);
  };
  const std::string dram = triad_note("DRAM triad (1 thread)", 1, alone);
  if (!dram.empty()) notes.push_back(dram);
  for (const auto& [threads, group] : at_once) {
    const std::string node =
        triad_note(fmt::format("DRAM triad ({} threads at once)", threads), threads, group);
    if (!node.empty()) notes.push_back(node);
  }
  const std::string add = off_the_profile(
      "add latency", profile_add_latency(target), alone,
      [](const MachineSample& s) { return s.add_latency_seconds; }, time_text, false);
  if (!add.empty()) notes.push_back(add);
  if (!target.memory.empty()) {
    const std::string l1 = off_the_profile(
        fmt::format("{} read (1 thread)", target.memory.front().name), profile_l1_read(target),
        alone, [](const MachineSample& s) { return s.l1_read_bytes_per_second; }, rate_text, true);
    if (!l1.empty()) notes.push_back(l1);
  }
  // The chase, against the profile's chase at the size the samples chased.
  std::vector<MachineSample> chased;
  for (const MachineSample& s : alone) {
    if (s.chase_bytes > 0) chased.push_back(s);
  }
  if (!chased.empty()) {
    const std::uint64_t bytes = chased.front().chase_bytes;
    const std::string chase = off_the_profile(
        fmt::format("random chase over {}", format_bytes(static_cast<double>(bytes))),
        profile_dram_chase(target, bytes), chased,
        [](const MachineSample& s) { return s.dram_chase_seconds; }, time_text, false);
    if (!chase.empty()) notes.push_back(chase);
  }
  return notes;
}

namespace {

// One figure's mean before the runs, after them, and over both (a sample with no "when": before).
struct StateMeans {
  std::optional<double> before, after;
  double all = 0;
  // Before and after more than one state's width apart: the runs timed neither state.
  bool moved() const {
    return before && after && std::max(*before, *after) > kSameState * std::min(*before, *after);
  }
};
// Those means of `figure` (a sample's value; not above 0 or not finite: not measured) by each
// sample's thread count.
template <class Figure>
std::map<unsigned, StateMeans> means_by_threads(const std::vector<MachineSample>& samples,
                                                Figure figure) {
  std::map<unsigned, std::pair<std::vector<double>, std::vector<double>>> values;  // before, after
  for (const MachineSample& s : samples) {
    const double value = figure(s);
    if (!(value > 0) || !std::isfinite(value)) continue;
    auto& [before, after] = values[s.threads];
    (s.when == "after" ? after : before).push_back(value);
  }
  const auto sum = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0);
  };
  std::map<unsigned, StateMeans> means;
  for (const auto& [threads, sides] : values) {
    const auto& [before, after] = sides;
    StateMeans& m = means[threads];
    if (!before.empty()) m.before = sum(before) / static_cast<double>(before.size());
    if (!after.empty()) m.after = sum(after) / static_cast<double>(after.size());
    m.all = (sum(before) + sum(after)) / static_cast<double>(before.size() + after.size());
  }
  return means;
}

std::map<unsigned, StateMeans> triad_means(const std::vector<MachineSample>& samples) {
  return means_by_threads(samples,
                          [](const MachineSample& s) { return s.dram_triad_bytes_per_second; });
}

// A measured or fitted value and its interval, times `factor`.
void scale(profile::Quantity& q, double factor) {
  q.value *= factor;
  if (q.interval) {
    q.interval->low *= factor;
    q.interval->high *= factor;
  }
}

std::string threads_text(unsigned threads) {
  return threads == 1 ? std::string("1 thread") : fmt::format("{} threads", threads);
}

// "DRAM triad (2 threads) moved from 48.3 GB/s before the runs to 84.2 GB/s after"; "" where it
// stayed.
std::string moved_text(unsigned threads, const StateMeans& m) {
  if (!m.moved()) return "";
  return fmt::format("DRAM triad ({}) moved from {} before the runs to {} after",
                     threads_text(threads), rate_text(*m.before), rate_text(*m.after));
}

}  // namespace

std::string state_moved(const std::vector<MachineSample>& samples) {
  std::vector<std::string> moved;
  for (const auto& [threads, m] : triad_means(samples)) {
    if (std::string text = moved_text(threads, m); !text.empty()) moved.push_back(text);
  }
  return fmt::format("{}", fmt::join(moved, "; "));
}

namespace {

// What a miss to memory costs moves with the memory's state too: on a Zen 5 guest the probes'
// chase over 256 MiB read 201 to 221 ns around one check's runs and 160 to 169 around the next,
// against profiles' 181 and 223, and a transpose bound by its column walk and gathers took 331
// and 260 ms. So the costs a miss to memory sets (the random chase and the column walk over
// working sets at least the last cache's size, whichever of hwloc's claim and the probe's step is
// larger; every line gather; the memory level's latency) are scaled by the chase around the runs
// over the profile's, for every thread count alike (the probe chases with one), unless the chase
// moved by more than one state's width between before and after.
void scale_latencies_to_state_now(const profile::Profile& target,
                                  const std::vector<MachineSample>& samples, StateNow& now) {
  // One core's chase: the probe chases one size, and only one thread at a time.
  std::uint64_t bytes = 0;
  for (const MachineSample& s : samples) {
    if (s.threads == 1 && s.chase_bytes > 0) bytes = s.chase_bytes;
  }
  const profile::Quantity* profiled = profile_dram_chase(target, bytes);
  if (bytes == 0 || profiled == nullptr || !(profiled->value > 0) || target.memory.size() < 2) {
    return;
  }
  const auto chased = means_by_threads(samples, [](const MachineSample& s) {
    return s.chase_bytes > 0 ? s.dram_chase_seconds : 0.0;
  });
  const auto one = chased.find(1);
  if (one == chased.end()) return;
  const StateMeans& chase = one->second;
  const std::string what =
      fmt::format("random chase over {}", format_bytes(static_cast<double>(bytes)));
  if (chase.moved()) {
    now.notes.push_back(
        fmt::format("state now: {} moved from {} before the runs to {} after: "
                    "memory latencies as profiled",
                    what, time_text(*chase.before), time_text(*chase.after)));
    return;
  }
  const double chase_now = chase.all;
  const double ratio = chase_now / profiled->value;  // > 1: slower now
  const profile::MemoryLevel& last_cache = target.memory[target.memory.size() - 2];
  double edge = static_cast<double>(last_cache.capacity_bytes.value_or(0));
  if (last_cache.detected_capacity) edge = std::max(edge, last_cache.detected_capacity->value);
  for (profile::RandomChasePoint& point : now.profile.random_chase) {
    if (static_cast<double>(point.working_set_bytes) >= edge) scale(point.seconds, ratio);
  }
  for (profile::ColumnWalkPoint& point : now.profile.column_walk) {
    if (static_cast<double>(point.working_set_bytes) >= edge) scale(point.seconds, ratio);
  }
  for (profile::LineGatherPoint& point : now.profile.line_gather) scale(point.seconds, ratio);
  if (now.profile.memory.back().latency) scale(*now.profile.memory.back().latency, ratio);
  now.scaled = true;
  now.notes.push_back(fmt::format(
      "state now: memory latencies x {:.2f} ({} {} around the runs, the profile's {}): the random "
      "chase and the column walk from {} on, the line gathers, the memory's latency",
      ratio, what, time_text(chase_now), time_text(profiled->value), format_bytes(edge)));
}

}  // namespace

StateNow profile_in_state_now(const profile::Profile& target,
                              const std::vector<MachineSample>& samples) {
  StateNow now{target, {}, false};
  if (target.memory.empty()) return now;
  profile::MemoryLevel& dram = now.profile.memory.back();
  // Named before the lambdas below capture them (Clang 15 refuses to capture a structured binding).
  for (const auto& by_threads : triad_means(samples)) {
    const unsigned threads = by_threads.first;
    const StateMeans& means = by_threads.second;
    const std::string what = threads_text(threads);
    const profile::Quantity* profiled = profile_dram_triad(target, threads);
    if (profiled == nullptr || !(profiled->value > 0)) continue;  // nothing to set it against
    if (const std::string moved = moved_text(threads, means); !moved.empty()) {
      now.notes.push_back(fmt::format("state now: {}: its bandwidths as profiled", moved));
      continue;
    }
    const double triad_now = means.all;
    // The state now over the one the profile's figures stand in: the probes' own reading of that
    // state where the profile has it at this size, like against like; else its triad's figure.
    const profile::UsualState* usual = usual_state_for(target, threads, samples);
    const double reference = usual ? usual->dram_triad.value : profiled->value;
    const double ratio = triad_now / reference;
    // Each kernel as far as the node's memory bounds it (profile::move_between_states), against
    // the one-thread figures as this loop left them (one thread comes first).
    const auto move = [&](const std::string& kernel, double value) {
      const auto one = dram.bandwidth.find(kernel + "/1");
      return profile::move_between_states(kernel, static_cast<int>(threads), value, ratio,
                                          one == dram.bandwidth.end() ? nullptr : &one->second,
                                          profiled);
    };
    std::vector<std::string> bounded;
    for (auto& [key, quantity] : dram.bandwidth) {
      if (profile::bandwidth_threads(key) != static_cast<int>(threads) || !(quantity.value > 0)) {
        continue;
      }
      const std::string kernel = profile::bandwidth_kernel(key);
      const profile::StateMove moved = move(kernel, quantity.value);
      if (!moved.bound.empty()) {
        bounded.push_back(
            moved.value == quantity.value
                ? fmt::format("{} kept at {}{}", kernel, rate_text(quantity.value), moved.bound)
                : fmt::format("{} {} -> {}{}", kernel, rate_text(quantity.value),
                              rate_text(moved.value), moved.bound));
      }
      scale(quantity, moved.value / quantity.value);
    }
    for (profile::DramBandwidthPoint& point : now.profile.dram_bandwidth) {
      if (point.threads != threads || !(point.bytes_per_second.value > 0)) continue;
      scale(point.bytes_per_second,
            move(point.kernel, point.bytes_per_second.value).value / point.bytes_per_second.value);
    }
    now.scaled = true;
    now.notes.push_back(fmt::format(
        "state now: DRAM bandwidths with {} x {:.2f} (triad {} around the runs, {} {}){}", what,
        ratio, rate_text(triad_now), usual ? "the profile's probes' usual state" : "the profile's",
        rate_text(reference),
        bounded.empty() ? std::string() : fmt::format("; {}", fmt::join(bounded, "; "))));
  }
  scale_latencies_to_state_now(target, samples, now);
  return now;
}

}  // namespace sonde::check
