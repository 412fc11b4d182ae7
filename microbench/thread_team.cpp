#include "microbench/thread_team.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/error.hpp"

namespace sonde::microbench {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void cpu_relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

std::vector<unsigned> first_cores(unsigned count) {
  std::vector<unsigned> cores(count);
  std::iota(cores.begin(), cores.end(), 0u);
  return cores;
}

ThreadTeam::ThreadTeam(const Topology& topology, const std::vector<unsigned>& cores)
    : cores_(cores),
      start_seconds_(cores.size()),
      finish_seconds_(cores.size()),
      member_events_(cores.size()) {
  if (cores_.empty()) throw usage_error("thread team", "needs at least one core");
  for (unsigned core : cores_) {
    if (core >= topology.cores()) {
      throw usage_error(
          "--threads",
          fmt::format("core {} does not exist: this machine has {} cores", core, topology.cores()));
    }
  }
  topology.bind_current_thread_to_core(cores_[0]);
  for (unsigned member = 1; member < cores_.size(); ++member) {
    workers_.emplace_back([this, member, &topology] { worker_loop(member, topology); });
  }
  // Wait until every worker has bound itself, so that binding errors surface here.
  run([](unsigned) {});
  if (bind_failures_ > 0) {
    stop_workers();
    throw io_error("thread team", fmt::format("{} threads could not be bound to their cores",
                                              bind_failures_.load()));
  }
}

ThreadTeam::~ThreadTeam() { stop_workers(); }

void ThreadTeam::stop_workers() {
  stopping_ = true;
  generation_.fetch_add(1);
  generation_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

void ThreadTeam::worker_loop(unsigned member, const Topology& topology) {
  try {
    topology.bind_current_thread_to_core(cores_[member]);
  } catch (const Error&) {
    bind_failures_.fetch_add(1);
  }
  std::uint64_t seen = 0;
  for (;;) {
    // Spin briefly (a benchmark calls run() back to back), then sleep in the kernel.
    std::uint64_t current = generation_.load(std::memory_order_acquire);
    for (int spin = 0; current == seen && spin < 20000; ++spin) {
      cpu_relax();
      current = generation_.load(std::memory_order_acquire);
    }
    while (current == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      current = generation_.load(std::memory_order_acquire);
    }
    seen = current;
    if (stopping_) return;
    execute(member);
  }
}

void ThreadTeam::execute(unsigned member) {
  if (timed_) {
    arrived_.fetch_add(1, std::memory_order_acq_rel);
    while (arrived_.load(std::memory_order_acquire) < size()) cpu_relax();
    // Counting starts after the barrier, so that its spinning loads are not counted.
    const HardwareCounters& counters = HardwareCounters::get();
    counters.start();
    start_seconds_[member] = now_seconds();
    (*work_)(member);
    finish_seconds_[member] = now_seconds();
    counters.stop(member_events_[member].totals);
  } else {
    (*work_)(member);
  }
  finished_.fetch_add(1, std::memory_order_acq_rel);
}

void ThreadTeam::dispatch(const std::function<void(unsigned)>* work, bool timed) {
  work_ = work;
  timed_ = timed;
  arrived_.store(0, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  execute(0);
  while (finished_.load(std::memory_order_acquire) < size()) cpu_relax();
}

void ThreadTeam::run(const std::function<void(unsigned)>& work) { dispatch(&work, false); }

double ThreadTeam::run_timed(const std::function<void(unsigned)>& work) {
  dispatch(&work, true);
  const double start = *std::min_element(start_seconds_.begin(), start_seconds_.end());
  const double finish = *std::max_element(finish_seconds_.begin(), finish_seconds_.end());
  return finish - start;
}

EventTotals ThreadTeam::counted() const {
  EventTotals sum;
  for (const MemberEvents& member : member_events_) sum += member.totals;
  return sum;
}

void ThreadTeam::reset_counts() {
  for (MemberEvents& member : member_events_) member.totals = EventTotals{};
}

std::uint64_t ThreadTeam::run_benchmark_loop(benchmark::State& state,
                                             const std::function<void(unsigned)>& work) {
  run(work);
  reset_counts();
  std::uint64_t runs = 1;
  for (auto _ : state) {
    state.SetIterationTime(run_timed(work));
    ++runs;
  }
  return runs;
}

}  // namespace sonde::microbench
