#include "check/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <thread>
#include <vector>

#include "check/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "microbench/compute/compute_kernels.hpp"
#include "microbench/memory/memory_kernels.hpp"
#include "microbench/memory_limits.hpp"
#include "microbench/page_buffer.hpp"
#include "microbench/topology.hpp"

namespace sonde::check {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDriftWorthANote = 0.05;
constexpr unsigned kCoresProbed = 8;

std::string rate_text(double bytes_per_second) {
  return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}
std::string time_text(double seconds) { return fmt::format("{:.3g} ns", seconds * 1e9); }

// Where the samples' range lies outside the quantity's interval and one of them is 5% or more
// faster or slower than its value: a note with the samples' mean speed, else "".
template <class Field, class Format>
std::string outside(const std::string& what, const profile::Quantity* q,
                    const std::vector<MachineSample>& samples, Field field, Format format,
                    bool higher_is_faster) {
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
  if (low >= q_low && high <= q_high) return "";
  const auto speed_of = [&](double now) {
    return higher_is_faster ? now / q->value : q->value / now;
  };
  // An interval from a few repetitions seconds apart can be far narrower than the machine's
  // wander: with every core within 5% of the profile's value there is nothing worth a note.
  if (std::abs(speed_of(low) - 1) < kDriftWorthANote &&
      std::abs(speed_of(high) - 1) < kDriftWorthANote) {
    return "";
  }
  const double speed = speed_of(sum / static_cast<double>(samples.size()));
  const std::string range = low == high ? format(low) : format(low) + " .. " + format(high);
  const std::string interval =
      q->interval ? fmt::format(" [{} .. {}]", format(q_low), format(q_high)) : std::string();
  return fmt::format("machine now: {} {}, the profile's {}{}: {:.2f} times as fast on average",
                     what, range, format(q->value), interval, speed);
}

// The triad as the memory suite runs it: the three arrays of n doubles one after another in one
// buffer of base pages (three arrays from new[] sat 16 B off a line and at one offset in their
// pages, and ran at 28 GB/s where the suite's got 37 to 40), touched first by the thread that
// makes them, so on its core's NUMA node.
class TriadArrays {
 public:
  explicit TriadArrays(std::size_t n)
      : n_(n), buffer_(3 * n * sizeof(double), microbench::PagePolicy::base) {
    for (std::size_t i = 0; i < n_; ++i) {
      a()[i] = 0;
      b()[i] = 1;
      c()[i] = 2;
    }
  }
  void sweep() { microbench::triad_kernel(a(), b(), c(), 0.5, n_); }
  // a = b + 0.5 c: read back, so that no sweep can be left out.
  bool swept() const { return static_cast<const double*>(buffer_.data())[n_ / 2] == 2.0; }

 private:
  double* a() { return static_cast<double*>(buffer_.data()); }
  double* b() { return a() + n_; }
  double* c() { return b() + n_; }

  std::size_t n_;
  microbench::PageBuffer buffer_;
};

}  // namespace

MachineSample probe_core(const ProbeSizes& sizes) {
  MachineSample sample;
  // Five sweeps; the median sweep's rate.
  const std::size_t n = std::max<std::uint64_t>(sizes.triad_bytes / 24, 1024);
  TriadArrays arrays(n);
  std::vector<double> rates;
  for (int sweep = 0; sweep < 5; ++sweep) {
    const auto start = Clock::now();
    arrays.sweep();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    rates.push_back(24.0 * static_cast<double>(n) / seconds);
  }
  // The result is read, so that no sweep can be left out.
  if (!arrays.swept()) rates.assign(1, 0.0);
  sample.dram_triad_bytes_per_second = summarize(std::move(rates)).median;

  // The add chain: five runs of 2^22 steps (a few milliseconds each); the median step.
  constexpr std::uint64_t steps = 1u << 22;
  std::vector<double> latencies;
  double sink = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = Clock::now();
    sink += microbench::run_latency_chain(microbench::Operation::add, steps);
    latencies.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                        static_cast<double>(steps));
  }
  sample.add_latency_seconds = std::isfinite(sink) ? summarize(std::move(latencies)).median : 0.0;

  // The random chase: one cycle through every line of the buffer in random order, as the memory
  // suite links it; 2^16 loads to bring its pages back into the TLB, then five runs of 2^16.
  constexpr std::size_t kChaseSteps = 1u << 16;
  const unsigned line = std::max(8u, sizes.line_bytes);
  if (sizes.chase_bytes >= 2 * line) {
    const std::size_t lines = sizes.chase_bytes / line;
    microbench::PageBuffer buffer(lines * line, microbench::PagePolicy::base);
    const void* p =
        microbench::link_chase(buffer.data(), line, microbench::chase_visit_order(lines, lines, 1));
    p = microbench::chase(p, kChaseSteps);
    std::vector<double> loads;
    for (int run = 0; run < 5; ++run) {
      const auto start = Clock::now();
      p = microbench::chase(p, kChaseSteps);
      loads.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                      static_cast<double>(kChaseSteps));
    }
    // The chain ends inside its buffer, or it was not the chase that was timed.
    const auto* begin = static_cast<const char*>(buffer.data());
    const auto* where = static_cast<const char*>(p);
    if (where >= begin && where < begin + lines * line) {
      sample.dram_chase_seconds = summarize(std::move(loads)).median;
      sample.chase_bytes = lines * line;
    }
  }
  return sample;
}

MachineSample probe_cores_at_once(const std::vector<unsigned>& cores, std::uint64_t triad_bytes) {
  const microbench::Topology topology = microbench::Topology::from_system();
  const std::size_t k = std::max<std::size_t>(cores.size(), 1);
  const std::size_t n = std::max<std::uint64_t>(triad_bytes / 24 / k, 1024);  // per thread
  constexpr int kSweeps = 5;
  std::vector<Clock::time_point> starts(k * kSweeps), ends(k * kSweeps);
  std::vector<std::exception_ptr> failures(k);
  std::vector<char> read_back(k, 0);
  std::barrier together(static_cast<std::ptrdiff_t>(k));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < k; ++t) {
    threads.emplace_back([&, t] {
      try {
        if (!cores.empty()) topology.bind_current_thread_to_core(cores[t]);
        // Each thread's arrays of its own, first touched from its core, as the memory suite's
        // threads have theirs.
        TriadArrays arrays(n);
        for (int sweep = 0; sweep < kSweeps; ++sweep) {
          together.arrive_and_wait();
          starts[t * kSweeps + sweep] = Clock::now();
          arrays.sweep();
          ends[t * kSweeps + sweep] = Clock::now();
        }
        read_back[t] = arrays.swept();
      } catch (...) {
        // Only the binding and the buffer throw, both before the first sweep: the others go on.
        failures[t] = std::current_exception();
        together.arrive_and_drop();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  std::vector<double> rates;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    Clock::time_point first = starts[sweep], last = ends[sweep];
    for (std::size_t t = 1; t < k; ++t) {
      first = std::min(first, starts[t * kSweeps + sweep]);
      last = std::max(last, ends[t * kSweeps + sweep]);
    }
    rates.push_back(24.0 * static_cast<double>(n * k) /
                    std::chrono::duration<double>(last - first).count());
  }
  MachineSample sample;
  sample.core = cores.empty() ? 0 : cores.front();
  sample.threads = static_cast<unsigned>(k);
  const bool read = std::all_of(read_back.begin(), read_back.end(), [](char r) { return r; });
  sample.dram_triad_bytes_per_second = read ? summarize(std::move(rates)).median : 0.0;
  return sample;
}

std::vector<MachineSample> probe_machine(const ProbeSizes& sizes) {
  const microbench::Topology topology = microbench::Topology::from_system();
  const unsigned cores = std::max(1u, topology.cores());
  const unsigned probed = std::min(cores, kCoresProbed);
  std::vector<MachineSample> samples;
  std::vector<unsigned> probed_cores;
  for (unsigned i = 0; i < probed; ++i) {
    const unsigned core = probed == 1 ? 0 : i * (cores - 1) / (probed - 1);
    probed_cores.push_back(core);
    MachineSample sample;
    std::exception_ptr failure;
    std::thread probe([&] {
      try {
        topology.bind_current_thread_to_core(core);
        sample = probe_core(sizes);
      } catch (...) {
        failure = std::current_exception();
      }
    });
    probe.join();
    if (failure) std::rethrow_exception(failure);
    sample.core = core;
    samples.push_back(sample);
  }
  if (probed_cores.size() > 1) {
    samples.push_back(probe_cores_at_once(probed_cores, sizes.triad_bytes));
  }
  return samples;
}

std::uint64_t memory_available() {
  try {
    return microbench::usable_memory(microbench::Topology::from_system()).bytes;
  } catch (const Error&) {
    return 0;  // nothing known: probe_bytes keeps to its floor
  }
}

std::uint64_t probe_bytes(const profile::Profile& target, std::uint64_t memory_bytes) {
  double largest = 0;
  for (const profile::MemoryLevel& level : target.memory) {
    if (level.detected_capacity) {
      largest = std::max(largest, level.detected_capacity->value);
    } else if (level.capacity_bytes) {
      largest = std::max(largest, static_cast<double>(*level.capacity_bytes));
    }
  }
  const double wanted = std::clamp(8 * largest, 192.0 * (1 << 20), 2048.0 * (1 << 20));
  // Never more than an eighth of the memory available, nor less than 24 MiB.
  const double room = std::max(static_cast<double>(memory_bytes) / 8, 24.0 * (1 << 20));
  return static_cast<std::uint64_t>(std::min(wanted, room));
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

std::vector<std::string> drift_notes(const profile::Profile& target,
                                     const std::vector<MachineSample>& samples) {
  std::vector<std::string> notes;
  std::vector<MachineSample> alone;
  std::map<unsigned, std::vector<MachineSample>> at_once;  // by how many cores at once
  for (const MachineSample& s : samples) (s.threads > 1 ? at_once[s.threads] : alone).push_back(s);
  const auto triad = [](const MachineSample& s) { return s.dram_triad_bytes_per_second; };
  const std::string dram =
      outside("DRAM triad (1 thread)", profile_dram_triad(target), alone, triad, rate_text, true);
  if (!dram.empty()) notes.push_back(dram);
  for (const auto& [threads, group] : at_once) {
    const std::string node =
        outside(fmt::format("DRAM triad ({} threads at once)", threads),
                profile_dram_triad(target, threads), group, triad, rate_text, true);
    if (!node.empty()) notes.push_back(node);
  }
  const std::string add = outside(
      "add latency", profile_add_latency(target), alone,
      [](const MachineSample& s) { return s.add_latency_seconds; }, time_text, false);
  if (!add.empty()) notes.push_back(add);
  // The chase, against the profile's chase at the size the samples chased.
  std::vector<MachineSample> chased;
  for (const MachineSample& s : alone) {
    if (s.chase_bytes > 0) chased.push_back(s);
  }
  if (!chased.empty()) {
    const std::uint64_t bytes = chased.front().chase_bytes;
    const std::string chase = outside(
        fmt::format("random chase over {}", format_bytes(static_cast<double>(bytes))),
        profile_dram_chase(target, bytes), chased,
        [](const MachineSample& s) { return s.dram_chase_seconds; }, time_text, false);
    if (!chase.empty()) notes.push_back(chase);
  }
  return notes;
}

}  // namespace sonde::check
