#include "microbench/overhead/overhead_suite.hpp"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/result_format.hpp"
#include "microbench/hardware_counters.hpp"
#include "microbench/thread_team.hpp"

namespace sonde::microbench {

namespace param = result_format::param;  // the keys readers rely on
namespace {

using benchmark::Counter;
const auto kPerOperation = Counter::kIsIterationInvariantRate | Counter::kInvert;

// Operations per timed iteration of the multi-threaded benchmarks: enough that starting the team
// (about a microsecond) is below 1% of the time.
constexpr std::uint64_t kSyncOperationsPerIteration = 20000;

void write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

// Reads exactly `bytes`; false at end of file or on error.
bool read_all(int fd, void* data, std::size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::read(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// A child process bound to a core that answers each one-byte request on one pipe with `reply_bytes`
// on another, until the requests end: the partner of the pipe and context-switch benchmarks.
class PipePartner {
 public:
  PipePartner(const Topology& topology, unsigned core, std::size_t reply_bytes) {
    if (::pipe(requests_) != 0 || ::pipe(replies_) != 0) {
      throw io_error("pipe", std::strerror(errno));
    }
    pid_ = ::fork();
    if (pid_ < 0) throw io_error("fork", std::strerror(errno));
    if (pid_ == 0) {
      ::close(requests_[1]);
      ::close(replies_[0]);
      try {
        topology.bind_current_thread_to_core(core);
      } catch (...) {
        ::_exit(2);
      }
      std::vector<char> reply(reply_bytes, 'r');
      char request = 0;
      while (read_all(requests_[0], &request, 1))
        write_all(replies_[1], reply.data(), reply.size());
      ::_exit(0);
    }
    ::close(requests_[0]);
    ::close(replies_[1]);
  }
  PipePartner(const PipePartner&) = delete;
  PipePartner& operator=(const PipePartner&) = delete;
  ~PipePartner() {
    ::close(requests_[1]);  // the partner reads end of file and exits
    ::close(replies_[0]);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  // One request and its whole reply: false when the partner is gone.
  bool exchange(void* reply, std::size_t bytes) {
    const char request = 'q';
    if (::write(requests_[1], &request, 1) != 1) return false;
    return read_all(replies_[0], reply, bytes);
  }

 private:
  int requests_[2]{-1, -1};
  int replies_[2]{-1, -1};
  pid_t pid_ = -1;
};

// The parent's resident memory: fork copies its page tables, so its cost grows with it.
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

constexpr const char* kSystemNotDerived =
    "the operating system's and the threads' library's code has no access pattern sonde knows";

}  // namespace

std::vector<std::string> overhead_part_names() { return {"process", "pipe", "sync"}; }

OverheadSuitePlan plan_overhead_suite(const CommonOptions& options, const Topology& topology,
                                      const Sizing& sizing) {
  OverheadSuitePlan plan;
  plan.repetitions = planned_repetitions(options, sizing);
  plan.min_time_seconds = planned_min_time(options, sizing, 0.05, 0.002);
  // Waking a process on another core got slower the longer the exchange ran on this VM (33 us a
  // round trip over 1000 exchanges, 49 us over 100000: the host adapts its idle polling), so the
  // pipe benchmarks run long enough to reach that steady state, as perf bench sched pipe does.
  plan.pipe_min_time_seconds = planned_min_time(options, sizing, 0.5, 0.002);
  plan.two_cores = topology.cores() >= 2;
  plan.pipe_message_bytes = options.quick ? (256u << 10) : (16u << 20);
  plan.thread_counts = sizing.thread_counts(topology.cores());
  plan.parts = select_parts(options.parts, overhead_part_names());
  if (!plan.two_cores && has_part(plan.parts, "pipe")) {
    plan.skipped_parts.push_back("pipe latency and bandwidth: need two cores");
  }
  return plan;
}

void register_overhead_suite(const OverheadSuitePlan& plan, const Topology& topology,
                             const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const auto selected = [&](const char* part) { return has_part(plan.parts, part); };
  // The single-thread benchmarks count the measuring thread's events over the whole run, its
  // set-up (a partner process started) included, per iteration: the operating system's work on
  // other threads and in the child processes is not in them.
  const auto add = [&](const std::string& name, auto run, nlohmann::json params) {
    const bool pipe = params.value("part", "") == "pipe";
    auto counted_run = [run](benchmark::State& state) {
      ScopedCounting counting;
      run(state);
      record_counts(state, counting.stop(), "iteration", 1, std::nullopt);
    };
    params[param::suite] = "overhead";
    params["counts"] = count_sources(std::nullopt, kSystemNotDerived);
    register_benchmark(registry, name, counted_run, std::move(params), plan.repetitions,
                       pipe ? plan.pipe_min_time_seconds : plan.min_time_seconds)
        ->UseRealTime();
  };

  if (selected("process")) {
    // Xu and Hwang (1995), Table 2, "Process Creation": fork an empty child that exits at once, and
    // wait.
    add("overhead.process.fork_exit_wait",
        [clock](benchmark::State& state) {
          for (auto _ : state) {
            const pid_t pid = ::fork();
            if (pid == 0) ::_exit(0);
            int status = 0;
            if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
              state.SkipWithError("fork, exit or wait failed");
              return;
            }
          }
          add_time_per(state, clock, "operation", 1);
          state.counters["parent_resident_bytes"] = resident_bytes();
        },
        {{param::part, "process"},
         {param::operation, "fork_exit_wait"},
         {"source_table", "Table 2"}});
    // Table 3, "Create a Thread": start a thread that does nothing, and join it.
    add("overhead.process.thread_create_join",
        [clock](benchmark::State& state) {
          for (auto _ : state) {
            std::thread thread([] {});
            thread.join();
          }
          add_time_per(state, clock, "operation", 1);
        },
        {{param::part, "process"},
         {param::operation, "thread_create_join"},
         {"source_table", "Table 3"}});
  }

  if (selected("pipe")) {
    // Table 2, "Context Switching": two processes on ONE core pass a token through two pipes, so
    // every pass is a switch; a round trip is two switches.
    add("overhead.pipe.context_switch",
        [&topology, clock](benchmark::State& state) {
          topology.bind_current_thread_to_core(0);
          PipePartner partner(topology, 0, 1);
          char token = 0;
          for (auto _ : state) {
            if (!partner.exchange(&token, 1)) {
              state.SkipWithError("the partner process is gone");
              return;
            }
          }
          add_time_per(state, clock, "switch", 2);
          state.counters["seconds_per_round_trip"] = Counter(1, kPerOperation);
        },
        {{param::part, "pipe"},
         {param::operation, "context_switch"},
         {"cores", {0, 0}},
         {"source_table", "Table 2"}});
    if (plan.two_cores) {
      // Table 2, "Pipe Latency": the same token passing between two cores; the latency is half
      // the round trip.
      add("overhead.pipe.latency",
          [&topology, clock](benchmark::State& state) {
            topology.bind_current_thread_to_core(0);
            PipePartner partner(topology, 1, 1);
            char token = 0;
            for (auto _ : state) {
              if (!partner.exchange(&token, 1)) {
                state.SkipWithError("the partner process is gone");
                return;
              }
            }
            add_time_per(state, clock, "message", 2);
            state.counters["seconds_per_round_trip"] = Counter(1, kPerOperation);
          },
          {{param::part, "pipe"},
           {param::operation, "pipe_latency"},
           {"cores", {0, 1}},
           {param::message_bytes, 1},
           {"source_table", "Table 2"}});
      // Table 2, "Pipe Bandwidth": a large message from one process to another on another core.
      const std::uint64_t bytes = plan.pipe_message_bytes;
      add("overhead.pipe.bandwidth",
          [&topology, bytes](benchmark::State& state) {
            topology.bind_current_thread_to_core(0);
            PipePartner partner(topology, 1, bytes);
            std::vector<char> message(bytes);
            for (auto _ : state) {
              if (!partner.exchange(message.data(), message.size())) {
                state.SkipWithError("the partner process is gone");
                return;
              }
            }
            if (message.front() != 'r' || message.back() != 'r') {
              state.SkipWithError("the message arrived damaged");
              return;
            }
            state.counters["bytes_per_second"] =
                Counter(static_cast<double>(bytes), Counter::kIsIterationInvariantRate);
          },
          {{param::part, "pipe"},
           {param::operation, "pipe_bandwidth"},
           {"cores", {0, 1}},
           {param::message_bytes, bytes},
           {"source_table", "Table 2"}});
    }
  }

  if (selected("sync")) {
    // Table 3, "Thread Level Lock", uncontended: one thread locks and unlocks.
    add("overhead.sync.mutex_uncontended",
        [clock](benchmark::State& state) {
          std::mutex mutex;
          std::uint64_t counter = 0;
          for (auto _ : state) {
            mutex.lock();
            ++counter;
            mutex.unlock();
            benchmark::DoNotOptimize(counter);
          }
          add_time_per(state, clock, "operation", 1);
        },
        {{param::part, "sync"}, {param::operation, "mutex_lock_unlock"}, {param::threads, 1}});
    for (unsigned threads : plan.thread_counts) {
      const std::vector<unsigned> cores = first_cores(threads);
      const auto team_benchmark = [&, cores, threads](const std::string& operation, auto body) {
        const std::string name = fmt::format("overhead.sync.{}/threads:{}", operation, threads);
        auto run = [&topology, cores, body, clock](benchmark::State& state) {
          ThreadTeam team(topology, cores);
          team.run_benchmark_loop(state, body);
          // Seconds per operation of one thread: each did kSyncOperationsPerIteration of them.
          add_time_per(state, clock, "operation", static_cast<double>(kSyncOperationsPerIteration));
          record_counts(state, team.counted(), "operation",
                        static_cast<double>(cores.size() * kSyncOperationsPerIteration),
                        std::nullopt);
        };
        register_benchmark(registry, name, run,
                           {{param::suite, "overhead"},
                            {param::part, "sync"},
                            {param::operation, operation},
                            {param::threads, threads},
                            {"cores", cores},
                            {"operations_per_thread_per_iteration", kSyncOperationsPerIteration},
                            {"counts", count_sources(std::nullopt, kSystemNotDerived)}},
                           plan.repetitions, plan.min_time_seconds)
            ->UseManualTime();
      };
      // Contended lock: every thread locks and unlocks one mutex around an increment.
      auto mutex = std::make_shared<std::mutex>();
      auto guarded = std::make_shared<std::uint64_t>(0);
      team_benchmark("mutex_contended", [mutex, guarded](unsigned) {
        for (std::uint64_t i = 0; i < kSyncOperationsPerIteration; ++i) {
          std::lock_guard<std::mutex> lock(*mutex);
          ++*guarded;
        }
      });
      // Thread barrier (C++20 std::barrier): every thread arrives and waits, again and again.
      auto barrier = std::make_shared<std::barrier<>>(threads);
      team_benchmark("barrier", [barrier](unsigned) {
        for (std::uint64_t i = 0; i < kSyncOperationsPerIteration; ++i) barrier->arrive_and_wait();
      });
      // All threads update one word (QSM's K term for fetch-add): atomic fetch-add.
      auto word = std::make_shared<std::atomic<std::uint64_t>>(0);
      team_benchmark("atomic_fetch_add", [word](unsigned) {
        for (std::uint64_t i = 0; i < kSyncOperationsPerIteration; ++i) {
          word->fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
  }
}

nlohmann::json to_json(const OverheadSuitePlan& plan) {
  return {{"parts", plan.parts},
          {"skipped_parts", plan.skipped_parts},
          {"thread_counts", plan.thread_counts},
          {"pipe_message_bytes", plan.pipe_message_bytes},
          {"pipe_min_time_seconds", plan.pipe_min_time_seconds},
          {"repetitions", plan.repetitions},
          {"min_time_seconds", plan.min_time_seconds}};
}

}  // namespace sonde::microbench
