#include "microbench/machine_probe.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include "core/statistics.hpp"
#include "microbench/compute/compute_kernels.hpp"
#include "microbench/memory/memory_kernels.hpp"
#include "microbench/page_buffer.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned kCoresProbed = 8;

// The triad as the memory suite runs it: the three arrays of n doubles one after another in one
// buffer of base pages (three arrays from new[] sat 16 B off a line and at one offset in their
// pages, and ran at 28 GB/s where the suite's got 37 to 40), touched first by the thread that
// makes them, so on its core's NUMA node. Each array starts 17 lines further into its page than
// the one before, whatever n is (STREAM's OFFSET): back to back, a 192 MiB probe's arrays lay
// exactly 64 MiB apart, at one offset in their pages, and on a Zen 3 guest read 19.8 GB/s where
// the same arrays 17 lines apart read 20.8.
class TriadArrays {
 public:
  explicit TriadArrays(std::size_t n)
      : n_(n),
        stride_((n + kPageDoubles - 1) / kPageDoubles * kPageDoubles + kSkewDoubles),
        buffer_(3 * stride_ * sizeof(double), PagePolicy::base) {
    for (std::size_t i = 0; i < n_; ++i) {
      a()[i] = 0;
      b()[i] = 1;
      c()[i] = 2;
    }
  }
  void sweep() { triad_kernel(a(), b(), c(), 0.5, n_); }
  // a = b + 0.5 c: read back, so that no sweep can be left out.
  bool swept() const { return static_cast<const double*>(buffer_.data())[n_ / 2] == 2.0; }

 private:
  static constexpr std::size_t kPageDoubles = 4096 / sizeof(double);
  static constexpr std::size_t kSkewDoubles = 17 * 64 / sizeof(double);
  double* a() { return static_cast<double*>(buffer_.data()); }
  double* b() { return a() + stride_; }
  double* c() { return b() + stride_; }

  std::size_t n_;
  std::size_t stride_;  // from one array's start to the next's, in doubles
  PageBuffer buffer_;
};

}  // namespace

std::uint64_t dram_probe_bytes(double largest_cache_bytes, std::uint64_t memory_bytes) {
  const double wanted = std::clamp(8 * largest_cache_bytes, 192.0 * (1 << 20), 2048.0 * (1 << 20));
  const double room = std::max(static_cast<double>(memory_bytes) / 8, 24.0 * (1 << 20));
  return static_cast<std::uint64_t>(std::min(wanted, room));
}

std::uint64_t l1_probe_bytes(double first_cache_bytes) {
  const auto half = static_cast<std::uint64_t>(std::max(0.0, first_cache_bytes) / 2) / 8 * 8;
  return half >= 1024 ? half : 0;
}

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
  sample.dram_triad_bytes_per_second = sonde::median(std::move(rates));
  sample.triad_bytes = 24 * n;

  // The add chain: five runs of 2^22 steps (a few milliseconds each); the median step.
  constexpr std::uint64_t steps = 1u << 22;
  std::vector<double> latencies;
  double sink = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = Clock::now();
    sink += run_latency_chain(Operation::add, steps);
    latencies.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                        static_cast<double>(steps));
  }
  sample.add_latency_seconds = std::isfinite(sink) ? sonde::median(std::move(latencies)) : 0.0;

  // The random chase: one cycle through every line of the buffer in random order, as the memory
  // suite links it; 2^16 loads to bring its pages back into the TLB, then five runs of 2^16.
  constexpr std::size_t kChaseSteps = 1u << 16;
  const unsigned line = std::max(8u, sizes.line_bytes);
  if (sizes.chase_bytes >= 2 * line) {
    const std::size_t lines = sizes.chase_bytes / line;
    PageBuffer buffer(lines * line, PagePolicy::base);
    const void* p = link_chase(buffer.data(), line, chase_visit_order(lines, lines, 1));
    p = chase(p, kChaseSteps);
    std::vector<double> loads;
    for (int run = 0; run < 5; ++run) {
      const auto start = Clock::now();
      p = chase(p, kChaseSteps);
      loads.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                      static_cast<double>(kChaseSteps));
    }
    // The chain ends inside its buffer, or it was not the chase that was timed.
    const auto* begin = static_cast<const char*>(buffer.data());
    const auto* where = static_cast<const char*>(p);
    if (where >= begin && where < begin + lines * line) {
      sample.dram_chase_seconds = sonde::median(std::move(loads));
      sample.chase_bytes = lines * line;
    }
  }

  // The read kernel over a buffer that stays in the first level: 64 MiB a run (about half a
  // millisecond at 150 GB/s), after one run to bring it in; the median of five.
  if (sizes.l1_bytes >= 1024) {
    const std::size_t words = sizes.l1_bytes / sizeof(double);
    PageBuffer buffer(words * sizeof(double), PagePolicy::base);
    auto* a = static_cast<double*>(buffer.data());
    for (std::size_t i = 0; i < words; ++i) a[i] = 1.0;
    const std::size_t sweeps = std::max<std::size_t>(1, (std::size_t{64} << 20) / (words * 8));
    double sum = 0;
    std::vector<double> rates;
    for (int run = 0; run < 6; ++run) {
      const auto start = Clock::now();
      for (std::size_t sweep = 0; sweep < sweeps; ++sweep) {
        sum += read_kernel(a, words);
        // The kernel reads memory only: without this, a compiler that sees it whole could read
        // once.
        asm volatile("" ::: "memory");
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (run > 0) rates.push_back(static_cast<double>(sweeps * words * 8) / seconds);
    }
    // Every sweep summed ones: a sum short of that was not the kernel that was timed.
    if (sum == 6.0 * static_cast<double>(sweeps) * static_cast<double>(words)) {
      sample.l1_read_bytes_per_second = sonde::median(std::move(rates));
      sample.l1_bytes = words * sizeof(double);
    }
  }
  return sample;
}

MachineSample probe_cores_at_once(const std::vector<unsigned>& cores, std::uint64_t triad_bytes) {
  const Topology topology = Topology::from_system();
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
  sample.dram_triad_bytes_per_second = read ? sonde::median(std::move(rates)) : 0.0;
  sample.triad_bytes = 24 * n * k;
  return sample;
}

std::vector<MachineSample> probe_machine(const ProbeSizes& sizes) {
  const Topology topology = Topology::from_system();
  const unsigned cores = std::max(1u, topology.cores());
  // `count` cores spread over the machine, the first and the last among them.
  const auto spread = [&](unsigned count) {
    std::vector<unsigned> chosen;
    for (unsigned i = 0; i < count; ++i)
      chosen.push_back(count == 1 ? 0 : i * (cores - 1) / (count - 1));
    return chosen;
  };
  std::vector<MachineSample> samples;
  for (const unsigned core :
       spread(std::min({cores, kCoresProbed, std::max(1u, sizes.cores_alone)}))) {
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
  const std::vector<unsigned> together = spread(std::min(cores, kCoresProbed));
  if (together.size() > 1) samples.push_back(probe_cores_at_once(together, sizes.triad_bytes));
  return samples;
}

}  // namespace sonde::microbench
