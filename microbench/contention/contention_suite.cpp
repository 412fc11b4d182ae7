#include "microbench/contention/contention_suite.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>

#include "core/error.hpp"
#include "core/result_format.hpp"
#include "microbench/cache_flush.hpp"
#include "microbench/hardware_counters.hpp"
#include "microbench/memory/memory_kernels.hpp"
#include "microbench/page_buffer.hpp"
#include "microbench/thread_team.hpp"

namespace sonde::microbench {

namespace param = result_format::param;  // the keys readers rely on
namespace {

using benchmark::Counter;

// Accesses each thread makes per timed iteration, at least: starting the team is then below 1%.
constexpr std::uint64_t kAccessesPerThread = 1 << 16;
constexpr std::uint64_t kWordOperationsPerThread = 20000;
// The working set of the coherence experiments: 64 KiB, 1024 lines, in any core's L2.
constexpr std::size_t kCoherenceBytes = 64 << 10;
// The derived-count model knows capacity and conflicts, not lines moving between cores.
constexpr const char* kCoherenceNotDerived =
    "the cost is lines moving between cores (coherence), which the derived model does not count";

struct alignas(64) PaddedWord {
  std::atomic<std::uint64_t> value{0};
};

// The team and the sub-arrays of one geometry serve every stride, loads and stores, and every run
// of them: allocating and first-touching a "dram" sub-array for each run took several times
// longer than measuring it. Every element stays 1.0 (the stores write 1.0), so the loads' sums
// are checked whatever ran before.
struct AccessSetup {
  std::vector<unsigned> cores;
  std::size_t words = 0;
  bool concurrent = false;
  std::unique_ptr<ThreadTeam> team;
  PageBuffer buffer;
};

AccessSetup& access_setup(const Topology& topology, const std::vector<unsigned>& cores,
                          std::size_t n, bool concurrent) {
  static std::unique_ptr<AccessSetup> cached;
  if (cached && cached->cores == cores && cached->words == n && cached->concurrent == concurrent) {
    return *cached;
  }
  cached.reset();  // free the old buffer before mapping the new one
  auto setup = std::make_unique<AccessSetup>();
  setup->cores = cores;
  setup->words = n;
  setup->concurrent = concurrent;
  setup->team = std::make_unique<ThreadTeam>(topology, cores);
  const std::size_t arrays = concurrent ? 1 : cores.size();
  setup->buffer = PageBuffer(arrays * n * 8, PagePolicy::base);
  auto* base = static_cast<double*>(setup->buffer.data());
  // Each thread first touches its own sub-array (the first thread the shared one).
  setup->team->run([&](unsigned member) {
    if (!concurrent || member == 0) {
      double* a = concurrent ? base : base + member * n;
      std::fill(a, a + n, 1.0);
    }
  });
  cached = std::move(setup);
  return *cached;
}

void register_access(const ContentionSuitePlan& plan, const Topology& topology,
                     const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  for (unsigned threads : plan.thread_counts) {
    for (const std::string& level : plan.levels) {
      for (const bool store : {false, true}) {
        for (const bool concurrent : {false, true}) {
          if (threads == 1 && concurrent) continue;  // one thread: exclusive and concurrent agree
          for (unsigned stride : plan.strides) {
            const AccessExperiment experiment{threads, stride, level, store, concurrent};
            const std::string code = experiment_code(experiment);
            const std::uint64_t bytes =
                sub_array_bytes(topology, level, threads, concurrent, plan.dram_bytes);
            const std::size_t n = bytes / 8;
            const std::size_t touched = (n + stride - 1) / stride;
            const std::size_t passes = std::max<std::size_t>(1, kAccessesPerThread / touched);
            const std::vector<unsigned> cores = first_cores(threads);
            const std::string name = "contention/" + code;
            const AccessPattern pattern{
                {{8ull * n, 8ull * stride, store, false}}, threads, concurrent};
            const std::optional<Counts> derived = derive_on(topology, pattern);
            auto run = [&topology, cores, threads, n, stride, touched, passes, store, concurrent,
                        clock, derived](benchmark::State& state) {
              AccessSetup& setup = access_setup(topology, cores, n, concurrent);
              ThreadTeam& team = *setup.team;
              auto* base = static_cast<double*>(setup.buffer.data());
              std::vector<MemberResult> sums(threads);
              const auto array_of = [&](unsigned member) {
                return concurrent ? base : base + member * n;
              };
              const auto work = [&](unsigned member) {
                double* a = array_of(member);
                for (std::size_t pass = 0; pass < passes; ++pass) {
                  if (store) {
                    strided_write_kernel(a, n, stride, 1.0);
                  } else {
                    sums[member].value = strided_read_kernel(a, n, stride);
                  }
                  benchmark::ClobberMemory();
                }
              };
              team.run_benchmark_loop(state, work);
              if (!store) {
                for (const MemberResult& sum : sums) {
                  if (sum.value != static_cast<double>(touched)) {
                    state.SkipWithError("the strided loads computed a wrong sum");
                    return;
                  }
                }
              }
              add_time_per(state, clock, "access", static_cast<double>(touched * passes));
              record_counts(state, team.counted(), "access",
                            threads * static_cast<double>(touched * passes), derived);
            };
            register_benchmark(registry, name, run,
                               {{param::suite, "contention"},
                                {param::part, "access"},
                                {param::kernel, store ? "strided_write" : "strided_read"},
                                {"experiment", code},
                                {param::threads, threads},
                                {"cores", cores},
                                {param::stride_words, stride},
                                {"word_bytes", 8},
                                {param::level_target, level},
                                {param::access, store ? "store" : "load"},
                                {param::sharing, concurrent ? "concurrent" : "exclusive"},
                                {"sub_array_bytes", bytes},
                                {"accesses_per_pass", touched},
                                {param::page_policy, "base"},
                                {"counts", count_sources(pattern)}},
                               plan.repetitions, plan.min_time_seconds)
                ->UseManualTime();
          }
        }
      }
    }
  }
}

void register_one_word(const ContentionSuitePlan& plan, const Topology& topology,
                       const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  for (unsigned threads : plan.thread_counts) {
    for (const char* operation : {"load", "store", "fetch_add"}) {
      const std::vector<unsigned> cores = first_cores(threads);
      const std::string op = operation;
      const std::string name = fmt::format("contention.one_word.{}/threads:{}", op, threads);
      auto run = [&topology, cores, threads, op, clock](benchmark::State& state) {
        ThreadTeam team(topology, cores);
        PaddedWord word;
        std::vector<MemberResult> sums(threads);
        const auto work = [&](unsigned member) {
          if (op == "load") {
            std::uint64_t sum = 0;
            for (std::uint64_t i = 0; i < kWordOperationsPerThread; ++i) {
              sum += word.value.load(std::memory_order_relaxed);
            }
            sums[member].value = static_cast<double>(sum);
          } else if (op == "store") {
            for (std::uint64_t i = 0; i < kWordOperationsPerThread; ++i) {
              word.value.store(i, std::memory_order_relaxed);
            }
          } else {
            for (std::uint64_t i = 0; i < kWordOperationsPerThread; ++i) {
              word.value.fetch_add(1, std::memory_order_relaxed);
            }
          }
        };
        const std::uint64_t calls = team.run_benchmark_loop(state, work);
        if (op == "load" && std::any_of(sums.begin(), sums.end(),
                                        [](const MemberResult& sum) { return sum.value != 0; })) {
          state.SkipWithError("the loads of an unwritten word returned something else");
          return;
        }
        if (op == "fetch_add" && word.value.load() != calls * threads * kWordOperationsPerThread) {
          state.SkipWithError("fetch_add lost updates");
          return;
        }
        add_time_per(state, clock, "operation", static_cast<double>(kWordOperationsPerThread));
        record_counts(state, team.counted(), "operation",
                      static_cast<double>(threads * kWordOperationsPerThread), std::nullopt);
      };
      register_benchmark(registry, name, run,
                         {{param::suite, "contention"},
                          {param::part, "one-word"},
                          {param::kernel, "one_word"},
                          {param::operation, op},
                          {param::threads, threads},
                          {"cores", cores},
                          {"experiment", fmt::format("p{}.one_word.{}", threads, op)},
                          {"counts", count_sources(std::nullopt, kCoherenceNotDerived)}},
                         plan.repetitions, plan.min_time_seconds)
          ->UseManualTime();
    }
  }
}

void register_false_sharing(const ContentionSuitePlan& plan, const Topology& topology,
                            const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const unsigned threads = plan.thread_counts.back();
  if (threads < 2) return;
  const std::vector<unsigned> cores = first_cores(threads);
  for (const bool padded : {false, true}) {
    const std::string layout = padded ? "padded" : "same_line";
    const std::string name = fmt::format("contention.false_sharing.{}/threads:{}", layout, threads);
    auto run = [&topology, cores, threads, padded, clock](benchmark::State& state) {
      ThreadTeam team(topology, cores);
      // Same line: eight 8-byte words in each 64-byte line, one per thread. Padded: a line each.
      std::vector<PaddedWord> lines(threads);
      struct alignas(64) Line {
        std::atomic<std::uint64_t> words[8];
      };
      std::vector<Line> shared((threads + 7) / 8);
      for (Line& line : shared) {
        for (auto& word : line.words) word.store(0);
      }
      const auto counter = [&](unsigned member) -> std::atomic<std::uint64_t>& {
        return padded ? lines[member].value : shared[member / 8].words[member % 8];
      };
      // A plain load and store, no atomic read-modify-write: the cost is the line moving between
      // the cores that write it.
      const auto work = [&](unsigned member) {
        std::atomic<std::uint64_t>& word = counter(member);
        for (std::uint64_t i = 0; i < kWordOperationsPerThread; ++i) {
          word.store(word.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
      };
      const std::uint64_t calls = team.run_benchmark_loop(state, work);
      for (unsigned member = 0; member < threads; ++member) {
        if (counter(member).load() != calls * kWordOperationsPerThread) {
          state.SkipWithError("a thread's counter is wrong");
          return;
        }
      }
      add_time_per(state, clock, "operation", static_cast<double>(kWordOperationsPerThread));
      record_counts(state, team.counted(), "operation",
                    static_cast<double>(threads * kWordOperationsPerThread), std::nullopt);
    };
    register_benchmark(registry, name, run,
                       {{param::suite, "contention"},
                        {param::part, "false-sharing"},
                        {param::kernel, "increment_own_word"},
                        {"layout", layout},
                        {param::threads, threads},
                        {"cores", cores},
                        {"counts", count_sources(std::nullopt, kCoherenceNotDerived)}},
                       plan.repetitions, plan.min_time_seconds)
        ->UseManualTime();
  }
}

// Amato et al. (1999), section 5.1: loads of lines that another core holds. The measuring thread
// (core 0) chases a random cycle through 64 KiB after the lines were flushed from every cache and
// then, untimed, read by core 1 (clean: exclusive there), read by cores 1 and 2 (shared), or
// written by core 1 (dirty: modified there); "memory" is the flushed baseline.
void register_coherence(const ContentionSuitePlan& plan, const Topology& topology,
                        const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const unsigned line = topology.line_bytes().value_or(64);
  for (const std::string state_name : {"memory", "clean", "shared", "dirty"}) {
    const unsigned helpers = state_name == "memory" ? 0 : state_name == "shared" ? 2 : 1;
    if (helpers + 1 > topology.cores()) continue;  // reported as skipped by the plan
    const std::vector<unsigned> cores = first_cores(helpers + 1);
    const std::string name = "contention.coherence." + state_name;
    auto run = [&topology, cores, helpers, state_name, line, clock](benchmark::State& state) {
      ThreadTeam team(topology, cores);
      PageBuffer buffer(kCoherenceBytes, PagePolicy::base);
      const std::size_t lines = kCoherenceBytes / line;
      const void* start =
          link_chase(buffer.data(), line, chase_visit_order(lines, lines, 20261121));
      auto* bytes = static_cast<char*>(buffer.data());
      const void* p = start;
      const HardwareCounters& counters = HardwareCounters::get();
      EventTotals events;  // the measured thread's, in the timed chases only
      for (auto _ : state) {
        flush_from_caches(bytes, kCoherenceBytes, line);
        if (helpers > 0) {
          team.run([&](unsigned member) {
            if (member == 0) return;
            volatile char sink = 0;
            for (std::size_t i = 0; i < kCoherenceBytes; i += line) {
              if (state_name == "dirty") {
                bytes[i + 8] = static_cast<char>(i);  // beside the chase pointer
              } else {
                sink = sink + bytes[i + 8];
              }
            }
          });
        }
        counters.start();
        const auto begin = std::chrono::steady_clock::now();
        p = chase(p, lines);
        benchmark::DoNotOptimize(p);
        const auto end = std::chrono::steady_clock::now();
        counters.stop(events);
        state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
      }
      add_time_per(state, clock, "load", static_cast<double>(lines));
      record_counts(state, events, "load", static_cast<double>(lines), std::nullopt);
    };
    register_benchmark(registry, name, run,
                       {{param::suite, "contention"},
                        {param::part, "coherence"},
                        {param::kernel, "pointer_chase"},
                        {"line_state", state_name},
                        {"holders", helpers},
                        {param::working_set_bytes, kCoherenceBytes},
                        {"line_bytes", line},
                        {"counts", count_sources(std::nullopt, kCoherenceNotDerived)},
                        {"flushed_with", cache_flush_method()},
                        {"cores", cores}},
                       plan.repetitions, plan.min_time_seconds)
        ->UseManualTime();
  }
}

}  // namespace

std::string experiment_code(const AccessExperiment& e) {
  return fmt::format("p{}.s{}.{}.{}{}", e.threads, e.stride_words, e.level, e.store ? 'S' : 'L',
                     e.concurrent ? 'C' : 'E');
}

std::uint64_t sub_array_bytes(const Topology& topology, const std::string& level, unsigned threads,
                              bool concurrent, std::uint64_t dram_bytes) {
  const auto& caches = topology.data_caches();
  if (caches.empty()) throw usage_error("contention suite", "hwloc reports no caches here");
  const CacheLevel& last = caches.back();
  std::uint64_t bytes = 0;
  if (level == "dram") {
    bytes = concurrent ? dram_bytes : dram_bytes / threads;
  } else {
    const int depth = level.size() == 2 && level[0] == 'l' ? level[1] - '0' : 0;
    const auto it = std::find_if(caches.begin(), caches.end(),
                                 [&](const CacheLevel& c) { return c.depth == depth; });
    if (it == caches.end()) throw usage_error("contention suite", "no cache level " + level);
    if (&*it == &last) {
      const std::uint64_t sharing = std::max(1u, it->cores_per_instance);
      const std::uint64_t reached =
          std::min<std::uint64_t>(it->instances, (threads + sharing - 1) / sharing);
      bytes = it->size_bytes * reached / 2 / (concurrent ? 1 : threads);
    } else {
      bytes = it->size_bytes / 2;
    }
  }
  // A cache level's sub-array is never larger than memory's: both fit the buffer allowance.
  bytes = std::min(bytes, concurrent ? dram_bytes : dram_bytes / threads);
  return std::max<std::uint64_t>(bytes / 64 * 64, 64);
}

namespace {

// A core's loads from memory on each NUMA node: a dependent chase (latency) and a streaming read
// (bandwidth), one thread on core 0, the buffer bound to the node before its first touch and its
// placement read back (a benchmark whose pages landed elsewhere fails rather than mislabels).
void register_numa(const ContentionSuitePlan& plan, const Topology& topology,
                   const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const unsigned line = topology.line_bytes().value_or(64);
  const unsigned home = topology.numa_node_of_core(0);
  const std::uint64_t bytes = plan.numa_bytes;
  for (unsigned node = 0; node < plan.numa_nodes; ++node) {
    const std::string locality = node == home ? "local" : "remote";
    for (const bool latency : {true, false}) {
      const std::string kind = latency ? "latency" : "read";
      const std::string name = fmt::format("contention.numa.{}/node:{}", kind, node);
      const AccessPattern pattern{{{bytes, latency ? line : 8ull, false, latency}}, 1, false};
      const std::optional<Counts> derived = derive_on(topology, pattern);
      auto run = [&topology, node, bytes, line, latency, clock, derived](benchmark::State& state) {
        topology.bind_current_thread_to_core(0);
        // One buffer per node and kind serves every run: linking a chase of a gigabyte takes
        // seconds.
        struct NumaSetup {
          unsigned node = 0;
          bool latency = false;
          PageBuffer buffer;
          const void* start = nullptr;
        };
        static std::unique_ptr<NumaSetup> cached;
        const std::size_t lines = bytes / line;
        const std::size_t n = bytes / 8;
        if (!cached || cached->node != node || cached->latency != latency ||
            cached->buffer.bytes() != bytes) {
          cached.reset();
          auto setup = std::make_unique<NumaSetup>();
          setup->node = node;
          setup->latency = latency;
          setup->buffer = PageBuffer(bytes, PagePolicy::base);
          try {
            topology.bind_memory_to_node(setup->buffer.data(), bytes, node);
          } catch (const Error& e) {
            state.SkipWithError(e.what());
            return;
          }
          if (latency) {
            setup->start =
                link_chase(setup->buffer.data(), line, chase_visit_order(lines, lines, 20261121));
          } else {
            std::fill_n(static_cast<double*>(setup->buffer.data()), n, 1.0);
          }
          cached = std::move(setup);
        }
        const PageBuffer& buffer = cached->buffer;
        const void* p = cached->start;
        if (topology.numa_node_holding(buffer.data(), bytes) != node) {
          state.SkipWithError(fmt::format("the pages are not on NUMA node {}", node).c_str());
          return;
        }
        const auto* a = static_cast<const double*>(buffer.data());
        double sum = 0;
        ScopedCounting counting;
        // A chase iteration is at most 2^20 loads: the cycle goes on where the last one stopped.
        const std::size_t steps = std::min<std::size_t>(lines, 1 << 20);
        for (auto _ : state) {
          if (latency) {
            p = chase(p, steps);
            benchmark::DoNotOptimize(p);
          } else {
            sum = read_kernel(a, n);
          }
        }
        const EventTotals& events = counting.stop();
        if (!latency && sum != static_cast<double>(n)) {
          state.SkipWithError("the read computed a wrong sum");
          return;
        }
        const double units = latency ? static_cast<double>(steps) : static_cast<double>(n);
        if (latency) {
          add_time_per(state, clock, "load", units);
        } else {
          state.counters["bytes_per_second"] =
              Counter(static_cast<double>(bytes), Counter::kIsIterationInvariantRate);
        }
        record_counts(state, events, latency ? "load" : "element", units, derived);
      };
      register_benchmark(registry, name, run,
                         {{param::suite, "contention"},
                          {param::part, "numa"},
                          {param::kernel, latency ? "pointer_chase" : "read"},
                          {"memory_node", topology.numa_nodes()[node].os_index},
                          {"core_node", topology.numa_nodes()[home].os_index},
                          {"locality", locality},
                          {param::working_set_bytes, bytes},
                          {"line_bytes", line},
                          {param::threads, 1},
                          {"cores", {0}},
                          {"counts", count_sources(pattern)}},
                         plan.repetitions, plan.min_time_seconds)
          ->UseRealTime();
    }
  }
}

}  // namespace

std::vector<std::string> contention_part_names() {
  return {param::access, "one-word", "false-sharing", "coherence", "numa"};
}

ContentionSuitePlan plan_contention_suite(const CommonOptions& options, const Topology& topology,
                                          const Sizing& sizing) {
  ContentionSuitePlan plan;
  plan.repetitions = planned_repetitions(options, sizing);
  plan.min_time_seconds = planned_min_time(options, sizing, 0.02, 0.002);
  const unsigned cores = std::max(1u, topology.cores());
  plan.thread_counts = sizing.thread_counts(cores);
  plan.dram_bytes = sizing.dram_bytes(topology);
  if (options.quick) {
    plan.strides = {1, 8, 256};
    plan.levels = {"l1"};
  } else {
    plan.strides = sizing.strides();
    for (const CacheLevel& cache : topology.data_caches()) {
      plan.levels.push_back(fmt::format("l{}", cache.depth));
    }
    plan.levels.push_back("dram");
  }
  for (const std::string& part : select_parts(options.parts, contention_part_names())) {
    if (part == "false-sharing" && cores < 2) {
      plan.skipped_parts.push_back("false-sharing: needs two cores");
      continue;
    }
    if (part == "coherence" && cores < 2) {
      plan.skipped_parts.push_back("coherence: needs two cores");
      continue;
    }
    if (part == "numa" && topology.numa_nodes().size() < 2) {
      plan.skipped_parts.push_back("numa: one NUMA node, no remote memory to measure");
      continue;
    }
    if (part == "coherence" && cores < 3) {
      plan.skipped_parts.push_back("coherence.shared: needs three cores (two holders)");
    }
    plan.parts.push_back(part);
  }
  plan.numa_nodes = static_cast<unsigned>(std::max<std::size_t>(1, topology.numa_nodes().size()));
  // The sizing's "dram" working set, so that nearly every load goes to memory; at least 64 MiB, at
  // most 1 GiB, a quarter of the smallest node and the buffer allowance.
  std::uint64_t smallest = UINT64_MAX;
  for (const NumaNode& node : topology.numa_nodes())
    smallest = std::min(smallest, node.memory_bytes);
  plan.numa_bytes =
      options.quick ? (8u << 20)
                    : std::clamp<std::uint64_t>(sizing.dram_bytes(topology), 64u << 20, 1u << 30);
  if (smallest != UINT64_MAX && smallest > 0)
    plan.numa_bytes = std::min(plan.numa_bytes, smallest / 4);
  plan.numa_bytes = std::min(plan.numa_bytes, sizing.max_buffer_bytes);
  plan.numa_bytes = plan.numa_bytes / 4096 * 4096;
  return plan;
}

void register_contention_suite(const ContentionSuitePlan& plan, const Topology& topology,
                               const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const auto selected = [&](const char* part) { return has_part(plan.parts, part); };
  if (selected("access")) register_access(plan, topology, clock, registry);
  if (selected("one-word")) register_one_word(plan, topology, clock, registry);
  if (selected("false-sharing")) register_false_sharing(plan, topology, clock, registry);
  if (selected("coherence")) register_coherence(plan, topology, clock, registry);
  if (selected("numa")) register_numa(plan, topology, clock, registry);
}

nlohmann::json to_json(const ContentionSuitePlan& plan) {
  return {{"parts", plan.parts},
          {"skipped_parts", plan.skipped_parts},
          {"thread_counts", plan.thread_counts},
          {"strides_words", plan.strides},
          {"levels", plan.levels},
          {"numa_nodes", plan.numa_nodes},
          {"numa_working_set_bytes", plan.numa_bytes},
          {"dram_bytes", plan.dram_bytes},
          {"repetitions", plan.repetitions},
          {"min_time_seconds", plan.min_time_seconds}};
}

}  // namespace sonde::microbench
