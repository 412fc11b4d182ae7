// A team of threads, each bound to its own core, that run one function together and are timed
// from a common start to the last finish: what "bandwidth with all cores" means. The calling
// thread is member 0, so a team of one has no synchronization cost at all.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "microbench/hardware_counters.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

// Cores 0 .. count-1 in hwloc's logical order: packed, the first socket first.
std::vector<unsigned> first_cores(unsigned count);

// One member's result, a cache line of its own so that members writing theirs do not share one.
struct alignas(64) MemberResult {
  double value = 0;
};

class ThreadTeam {
 public:
  // Binds the caller to cores[0] and starts one thread for each further core, bound to it.
  // Throws a usage Error when a core does not exist.
  ThreadTeam(const Topology& topology, const std::vector<unsigned>& cores);
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;
  ~ThreadTeam();

  unsigned size() const { return static_cast<unsigned>(cores_.size()); }

  // Runs work(member) on every member and returns when all have finished.
  void run(const std::function<void(unsigned member)>& work);

  // As run(), after a barrier that all members pass together; returns the seconds from the first
  // member's start to the last member's finish (the slowest member sets the time).
  double run_timed(const std::function<void(unsigned member)>& work);

  // A Google Benchmark loop over the team: `work` once untimed (warm-up: caches filled, pages
  // mapped, threads awake), then once per iteration, timed with run_timed() as the iteration's
  // manual time. Returns how many times `work` ran, the warm-up included. The hardware events of
  // the timed runs are then in counted().
  //
  std::uint64_t run_benchmark_loop(benchmark::State& state,
                                   const std::function<void(unsigned member)>& work);

  // Every member's hardware events in the timed runs since the last reset_counts(), summed.
  EventTotals counted() const;
  void reset_counts();

 private:
  void worker_loop(unsigned member, const Topology& topology);
  void dispatch(const std::function<void(unsigned)>* work, bool timed);
  void execute(unsigned member);
  void stop_workers();

  std::vector<unsigned> cores_;
  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<unsigned> arrived_{0};
  std::atomic<unsigned> finished_{0};
  std::atomic<bool> stopping_{false};
  const std::function<void(unsigned)>* work_ = nullptr;
  bool timed_ = false;
  std::vector<double> start_seconds_, finish_seconds_;
  struct alignas(64) MemberEvents {
    EventTotals totals;
  };
  std::vector<MemberEvents> member_events_;
  std::atomic<int> bind_failures_{0};
};

}  // namespace sonde::microbench
