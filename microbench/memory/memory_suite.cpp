#include "microbench/memory/memory_suite.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string_view>

#include "core/error.hpp"
#include "core/result_format.hpp"
#include "core/units.hpp"
#include "microbench/hardware_counters.hpp"
#include "microbench/memory/memory_kernels.hpp"
#include "microbench/page_buffer.hpp"
#include "microbench/thread_team.hpp"
#include "microbench/working_sets.hpp"

namespace sonde::microbench {

namespace param = result_format::param;  // the keys readers rely on
namespace {

constexpr std::size_t kChaseStepsPerIteration = 4096;
// Bytes each thread moves per timed iteration at least, so that starting and joining the team
// (about a microsecond) stays below 0.1% of the time even for L1-sized working sets.
constexpr std::uint64_t kBandwidthBytesPerThreadPerIteration = 8ull << 20;
constexpr std::size_t kStrideAccessesPerIteration = 1 << 16;
// The column walk's rows: 16 KiB (four 4 KiB pages), so that every access lands on a new page and a
// next-page prefetch cannot bring the next row's line; the smallest matrix has this many rows.
constexpr std::uint64_t kColumnRowBytes = 16384;
constexpr std::size_t kColumnMinRows = 8;
constexpr std::size_t kColumnAccessesPerIteration = 1 << 16;

enum class ChasePattern { random, in_page };

struct LatencyVariant {
  const char* part;
  ChasePattern pattern;
  PagePolicy pages;
  const char* pattern_name;
};
constexpr std::array<LatencyVariant, 3> kLatencyVariants{{
    {"latency-random-base", ChasePattern::random, PagePolicy::base, "random"},
    {"latency-in-page-base", ChasePattern::in_page, PagePolicy::base, "in_page"},
    {"latency-random-huge", ChasePattern::random, PagePolicy::huge, "random"},
}};

std::string bandwidth_part(unsigned threads) { return fmt::format("bandwidth-t{}", threads); }

// The chase of the previous benchmark stays allocated for the next repetition of the same
// working set: building one of 256 MiB (a shuffle and four million scattered writes) takes longer
// than measuring it.
struct ChaseSetup {
  std::uint64_t bytes = 0;
  ChasePattern pattern{};
  PagePolicy pages{};
  PageBuffer buffer;
  const void* start = nullptr;
  double huge_page_fraction = 0;
};

ChaseSetup& chase_setup(std::uint64_t bytes, ChasePattern pattern, PagePolicy pages,
                        unsigned line_bytes, std::uint64_t seed) {
  static std::unique_ptr<ChaseSetup> cached;
  if (cached && cached->bytes == bytes && cached->pattern == pattern && cached->pages == pages) {
    return *cached;
  }
  cached.reset();  // free the old buffer before mapping the new one
  auto setup = std::make_unique<ChaseSetup>();
  setup->bytes = bytes;
  setup->pattern = pattern;
  setup->pages = pages;
  // A huge-page buffer is mapped whole huge pages long, or the kernel could not back it with one.
  const std::size_t huge = huge_page_bytes();
  const std::size_t mapped = pages == PagePolicy::huge ? (bytes + huge - 1) / huge * huge
                                                       : static_cast<std::size_t>(bytes);
  setup->buffer = PageBuffer(mapped, pages);
  const std::size_t lines = bytes / line_bytes;
  const std::size_t group = pattern == ChasePattern::random
                                ? lines
                                : std::max<std::size_t>(1, base_page_bytes() / line_bytes);
  setup->start =
      link_chase(setup->buffer.data(), line_bytes, chase_visit_order(lines, group, seed));
  setup->huge_page_fraction = setup->buffer.huge_page_fraction();
  cached = std::move(setup);
  return *cached;
}

// False, and the benchmark failed, when a chase ended outside its working set (`bytes` from
// `buffer`): a corrupt chain would time something else.
bool chase_stayed_inside(benchmark::State& state, const PageBuffer& buffer, std::uint64_t bytes,
                         const void* p) {
  const auto* begin = static_cast<const char*>(buffer.data());
  const auto* where = static_cast<const char*>(p);
  if (where >= begin && where < begin + bytes) return true;
  state.SkipWithError("the chase left its working set: the chain is corrupt");
  return false;
}
bool chase_stayed_inside(benchmark::State& state, const ChaseSetup& setup, const void* p) {
  return chase_stayed_inside(state, setup.buffer, setup.bytes, p);
}

// The lines a chase walks before the clock starts: one trip around its cycle, but no more than
// twice the whole last level (beyond it every load misses; warming more only costs time).
std::uint64_t warm_lines_limit(const MemorySuitePlan& plan, const Topology& topology) {
  const auto& caches = topology.data_caches();
  const std::uint64_t last_level = caches.empty() ? 0 : caches.back().size_bytes;
  return std::max<std::uint64_t>(1, 2 * last_level / plan.line_bytes);
}

void register_latency(const MemorySuitePlan& plan, const LatencyVariant& variant,
                      const std::optional<CoreClock>& clock, const Topology& topology,
                      ParamRegistry& registry) {
  const std::uint64_t warm_lines_cap = warm_lines_limit(plan, topology);
  for (std::uint64_t bytes : plan.working_sets) {
    if (bytes > plan.latency_max_bytes) continue;
    const std::string name = fmt::format("memory.latency.{}.{}/ws:{}", variant.pattern_name,
                                         name_of(variant.pages), bytes);
    const unsigned line = plan.line_bytes;
    const std::uint64_t seed = plan.seed;
    // One load per line in random order (the in-page pattern too: it only limits the pages).
    const AccessPattern pattern{{{bytes, line, false, true}}, 1, false};
    const std::optional<Counts> derived = derive_on(topology, pattern);
    auto run = [=](benchmark::State& state) {
      ChaseSetup& setup = chase_setup(bytes, variant.pattern, variant.pages, line, seed);
      // One trip around the cycle (up to twice the last-level cache) brings a cache-sized working
      // set into its level and its pages into the TLB before the clock starts.
      const void* p = chase(setup.start, std::min<std::uint64_t>(bytes / line, warm_lines_cap));
      ScopedCounting counting;
      for (auto _ : state) {
        p = chase(p, kChaseStepsPerIteration);
        benchmark::DoNotOptimize(p);
      }
      const EventTotals& events = counting.stop();
      if (!chase_stayed_inside(state, setup, p)) return;
      add_time_per(state, clock, "load", kChaseStepsPerIteration);
      record_counts(state, events, "load", kChaseStepsPerIteration, derived);
      state.counters["huge_page_fraction"] = setup.huge_page_fraction;
    };
    register_benchmark(
        registry, name, run,
        {{param::suite, "memory"},
         {param::part, variant.part},
         {param::kernel, "pointer_chase"},
         {param::pattern, variant.pattern_name},
         {param::page_policy, name_of(variant.pages)},
         {"page_bytes", variant.pages == PagePolicy::huge ? huge_page_bytes() : base_page_bytes()},
         {param::working_set_bytes, bytes},
         {"line_bytes", line},
         {param::threads, 1},
         {"cores", {0}},
         {"loads_per_iteration", kChaseStepsPerIteration},
         {"counts", count_sources(pattern)}},
        plan.repetitions, plan.min_time_seconds)
        ->UseRealTime();
  }
}

// The chase with every core at once: each member of a team, bound to its own core, follows its
// own random chain over its own buffer. A dependent access then waits behind the other cores'
// misses at the memory controller (loaded latency), which the one-thread chase never sees.
// An iteration is timed from the first member's start to the last one's end; with 2^16 loads a
// member, the loaded chase in L1 and L2 (private) came out 3 to 9% above one thread's, which is
// that skew: 2^18 loads make it a quarter as large.
constexpr std::size_t kLoadedChaseStepsPerIteration = 1 << 18;

struct LoadedChaseSetup {
  std::uint64_t bytes = 0;
  std::vector<unsigned> cores;
  std::unique_ptr<ThreadTeam> team;
  std::vector<PageBuffer> buffers;
  std::vector<const void*> positions;  // where each member's chain stands
};

// Like the one-thread chase's, the chains of one working set serve all its repetitions. They are
// let go when the bandwidth parts start, so that both never hold memory at once.
std::unique_ptr<LoadedChaseSetup> loaded_chase_cache;

LoadedChaseSetup& loaded_chase_setup(std::uint64_t bytes, const std::vector<unsigned>& cores,
                                     unsigned line_bytes, std::uint64_t seed,
                                     std::uint64_t warm_lines_cap, const Topology& topology) {
  std::unique_ptr<LoadedChaseSetup>& cached = loaded_chase_cache;
  if (cached && cached->bytes == bytes && cached->cores == cores) return *cached;
  cached.reset();  // free the old buffers before mapping the new ones
  auto setup = std::make_unique<LoadedChaseSetup>();
  setup->bytes = bytes;
  setup->cores = cores;
  setup->team = std::make_unique<ThreadTeam>(topology, cores);
  const std::size_t members = cores.size();
  // Mapped here (no page is touched yet); each member links its own chain (its own seed), so that
  // its pages are first touched on its core's NUMA node, then walks it once to bring its pages
  // into the TLB and caches. A member that throws hands its error back to be thrown here.
  for (std::size_t m = 0; m < members; ++m) {
    setup->buffers.emplace_back(static_cast<std::size_t>(bytes), PagePolicy::base);
  }
  setup->positions.resize(members);
  std::vector<std::exception_ptr> failures(members);
  const std::size_t lines = bytes / line_bytes;
  setup->team->run([&](unsigned member) {
    try {
      const void* start = link_chase(setup->buffers[member].data(), line_bytes,
                                     chase_visit_order(lines, lines, seed + member));
      setup->positions[member] = chase(start, std::min<std::uint64_t>(lines, warm_lines_cap));
    } catch (...) {
      failures[member] = std::current_exception();
    }
  });
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  cached = std::move(setup);
  return *cached;
}

void register_loaded_latency(const MemorySuitePlan& plan, unsigned threads,
                             const std::optional<CoreClock>& clock, const Topology& topology,
                             ParamRegistry& registry) {
  const std::uint64_t warm_lines_cap = warm_lines_limit(plan, topology);
  const std::vector<unsigned> cores = first_cores(threads);
  // All chains together stay within the largest buffer the sizing allows.
  const std::uint64_t allowed = plan.working_sets.empty() ? 0 : plan.working_sets.back();
  for (std::uint64_t bytes : plan.working_sets) {
    if (bytes > plan.latency_max_bytes || bytes * threads > allowed) continue;
    const std::string name =
        fmt::format("memory.latency.random.base/threads:{}/ws:{}", threads, bytes);
    const unsigned line = plan.line_bytes;
    const std::uint64_t seed = plan.seed;
    const AccessPattern pattern{{{bytes, line, false, true}}, threads, false};
    const std::optional<Counts> derived = derive_on(topology, pattern);
    auto run = [=, &topology](benchmark::State& state) {
      LoadedChaseSetup& setup =
          loaded_chase_setup(bytes, cores, line, seed, warm_lines_cap, topology);
      ThreadTeam& team = *setup.team;
      team.run_benchmark_loop(state, [&](unsigned member) {
        const void* p = chase(setup.positions[member], kLoadedChaseStepsPerIteration);
        benchmark::DoNotOptimize(p);
        setup.positions[member] = p;
      });
      for (unsigned member = 0; member < threads; ++member) {
        if (!chase_stayed_inside(state, setup.buffers[member], bytes, setup.positions[member])) {
          return;
        }
      }
      // Per load of one member: every member made the same number of loads in the same time.
      add_time_per(state, clock, "load", kLoadedChaseStepsPerIteration);
      record_counts(state, team.counted(), "load",
                    static_cast<double>(kLoadedChaseStepsPerIteration) * threads, derived);
    };
    register_benchmark(registry, name, run,
                       {{param::suite, "memory"},
                        {param::part, result_format::part::latency_loaded},
                        {param::kernel, result_format::kernel::pointer_chase},
                        {param::pattern, "random"},
                        {param::page_policy, name_of(PagePolicy::base)},
                        {"page_bytes", base_page_bytes()},
                        {param::working_set_bytes, bytes},
                        {"line_bytes", line},
                        {param::threads, threads},
                        {"cores", cores},
                        {"loads_per_iteration", kLoadedChaseStepsPerIteration},
                        {"counts", count_sources(pattern)}},
                       plan.repetitions, plan.min_time_seconds)
        ->UseManualTime();
  }
}

// The coarse probe: one random chase per working set, two an octave, few short repetitions; the
// fastest repetition is what `sonde characterize` looks at (latency_steps). Its warm-up trip is
// capped at 2^22 loads: the probe must stay short whatever hwloc claims.
void register_probe(const MemorySuitePlan& plan, const std::optional<CoreClock>& clock,
                    ParamRegistry& registry) {
  constexpr std::uint64_t kWarmLoadsCap = 1ull << 22;
  const int repetitions = plan.quick ? 1 : 3;
  const double min_time = plan.quick ? 0.0005 : 0.002;
  for (std::uint64_t bytes : plan.probe_working_sets) {
    const unsigned line = plan.line_bytes;
    const std::uint64_t seed = plan.seed;
    auto run = [=](benchmark::State& state) {
      ChaseSetup& setup = chase_setup(bytes, ChasePattern::random, PagePolicy::base, line, seed);
      const void* p = chase(setup.start, std::min<std::uint64_t>(bytes / line, kWarmLoadsCap));
      for (auto _ : state) {
        p = chase(p, kChaseStepsPerIteration);
        benchmark::DoNotOptimize(p);
      }
      if (!chase_stayed_inside(state, setup, p)) return;
      add_time_per(state, clock, "load", kChaseStepsPerIteration);
    };
    register_benchmark(registry, fmt::format("memory.probe/ws:{}", bytes), run,
                       {{param::suite, "memory"},
                        {param::part, "probe"},
                        {param::kernel, "latency_probe"},
                        {param::pattern, "random"},
                        {param::page_policy, "base"},
                        {param::working_set_bytes, bytes},
                        {"line_bytes", line},
                        {param::threads, 1},
                        {"cores", {0}},
                        {"loads_per_iteration", kChaseStepsPerIteration},
                        {"counts", count_sources(std::nullopt,
                                                 "a first look at the latency "
                                                 "curve; not counted")}},
                       repetitions, min_time)
        ->UseRealTime();
  }
}

// Values the kernels start from, chosen so that every result is exact in floating point whether
// or not the compiler fuses the triad's multiply and add: small integers times 3.
double initial_a(std::size_t i) { return static_cast<double>(i % 1024); }
double initial_b(std::size_t i) { return static_cast<double>(i % 4096); }
double initial_c(std::size_t i) { return static_cast<double>(i % 7); }
constexpr double kTriadScalar = 3.0;
constexpr double kUpdateScalar = 1.0;
constexpr double kWriteValue = 2.5;
// With a[i] = i mod 1024 every sum the stencil makes is a small whole number times a quarter: exact
// in any order of evaluation, so its result is checked against the formula computed here.
constexpr double kStencilScalar = 0.25;

// Like the chase, the team and arrays of one bandwidth benchmark serve all its repetitions (and
// Google Benchmark's runs that size the iteration count): every kernel but the update gives the
// same result whatever the arrays held, so a repetition need not start from fresh ones; the
// update's passes are counted in the setup, so that its result can be checked all the same.
struct BandwidthSetup {
  StreamKernel kernel{};
  std::uint64_t bytes = 0;
  std::vector<unsigned> cores;
  std::unique_ptr<ThreadTeam> team;
  PageBuffer buffer;
  bool initialized = false;
  // The update kernel's passes over each member's slice so far, to check what it computed.
  std::vector<MemberResult> updates;
};

// The indexed kernel's matrices and vectors, one set per thread, kept like the streaming kernels'.
struct IndexedMember {
  PageBuffer buffer;
  std::int32_t* row = nullptr;
  std::int32_t* col = nullptr;
  double* val = nullptr;
  double* x = nullptr;
  double* y = nullptr;
};
struct IndexedSetup {
  unsigned threads = 0;
  std::size_t rows = 0;
  std::unique_ptr<ThreadTeam> team;
  std::vector<IndexedMember> members;
};

// One kept setup of any kind at a time, so that a large one is freed before the next is mapped.
std::unique_ptr<BandwidthSetup> bandwidth_cache;
std::unique_ptr<IndexedSetup> indexed_cache;
void drop_kept_setups() {
  bandwidth_cache.reset();
  indexed_cache.reset();
  loaded_chase_cache.reset();
}

BandwidthSetup& bandwidth_setup(StreamKernel kernel, std::uint64_t bytes,
                                const std::vector<unsigned>& cores, const Topology& topology) {
  std::unique_ptr<BandwidthSetup>& cached = bandwidth_cache;
  if (cached && cached->kernel == kernel && cached->bytes == bytes && cached->cores == cores) {
    return *cached;
  }
  drop_kept_setups();
  auto setup = std::make_unique<BandwidthSetup>();
  setup->kernel = kernel;
  setup->bytes = bytes;
  setup->cores = cores;
  setup->team = std::make_unique<ThreadTeam>(topology, cores);
  setup->buffer = PageBuffer(bytes, PagePolicy::base);
  setup->updates.resize(cores.size());
  cached = std::move(setup);
  return *cached;
}

void register_bandwidth(const MemorySuitePlan& plan, unsigned threads, std::uint64_t requested,
                        const Topology& topology, ParamRegistry& registry) {
  const std::vector<unsigned> cores = first_cores(threads);
  for (const KernelTraffic& traffic : stream_kernels()) {
    if (traffic.kernel == StreamKernel::update && !plan.update_kernel) continue;
    if (traffic.kernel == StreamKernel::stencil && !plan.stencil_kernel) continue;
    // Elements per thread and array, a whole number of 64-byte blocks.
    const std::size_t per_thread =
        std::max<std::size_t>(8, requested / (8ull * traffic.arrays * threads) / 8 * 8);
    const std::size_t n = per_thread * threads;
    const std::uint64_t bytes = 8ull * n * traffic.arrays;
    const std::uint64_t passes = std::max<std::uint64_t>(
        1, (kBandwidthBytesPerThreadPerIteration + bytes / threads - 1) / (bytes / threads));
    const std::string name =
        fmt::format("memory.bandwidth.{}/threads:{}/ws:{}", traffic.name, threads, requested);
    AccessPattern pattern{{}, threads, false};
    if (traffic.kernel == StreamKernel::update) {  // load a, store into a's lines, load b
      pattern.streams = {{8ull * per_thread, 8, false, false},
                         {8ull * per_thread, 8, true, false, true},
                         {8ull * per_thread, 8, false, false}};
    } else {
      for (unsigned i = 0; i < traffic.loads + traffic.stores; ++i) {
        pattern.streams.push_back({8ull * per_thread, 8, i >= traffic.loads, false});
      }
    }
    const std::optional<Counts> derived = derive_on(topology, pattern);
    auto run = [=, &topology](benchmark::State& state) {
      BandwidthSetup& setup = bandwidth_setup(traffic.kernel, bytes, cores, topology);
      ThreadTeam& team = *setup.team;
      double* a = static_cast<double*>(setup.buffer.data());
      double* b = a + n;
      double* c = a + 2 * n;
      std::vector<MemberResult> sums(threads);
      if (!setup.initialized) {
        // Each thread first touches its own slice, so that its pages sit on its NUMA node.
        team.run([&](unsigned member) {
          const std::size_t lo = member * per_thread, hi = lo + per_thread;
          for (std::size_t i = lo; i < hi; ++i) {
            switch (traffic.kernel) {
              case StreamKernel::read:
                a[i] = 1.0;
                break;
              case StreamKernel::write:
                a[i] = 0.0;
                break;
              case StreamKernel::copy:
                a[i] = initial_a(i);
                b[i] = -1.0;
                break;
              case StreamKernel::triad:
                a[i] = -1.0;
                b[i] = initial_b(i);
                c[i] = initial_c(i);
                break;
              case StreamKernel::update:
                a[i] = initial_a(i);
                b[i] = initial_c(i) + 1;
                break;
              case StreamKernel::stencil:
                a[i] = initial_a(i);
                b[i] = -1.0;
                break;
            }
          }
        });
        setup.initialized = true;
      }
      auto work = [&](unsigned member) {
        const std::size_t lo = member * per_thread;
        for (std::uint64_t pass = 0; pass < passes; ++pass) {
          switch (traffic.kernel) {
            case StreamKernel::read:
              // The sum is kept (and checked below); read_kernel is compiled apart, so no pass
              // can be dropped. No DoNotOptimize on the double: Google Benchmark 1.7's "+m,r"
              // asm constraint on it gave wrong sums here with GCC 12 (-O2 and -O3).
              sums[member].value = read_kernel(a + lo, per_thread);
              break;
            case StreamKernel::write:
              write_kernel(a + lo, per_thread, kWriteValue);
              break;
            case StreamKernel::copy:
              copy_kernel(b + lo, a + lo, per_thread);
              break;
            case StreamKernel::triad:
              triad_kernel(a + lo, b + lo, c + lo, kTriadScalar, per_thread);
              break;
            case StreamKernel::update:
              update_kernel(a + lo, b + lo, kUpdateScalar, per_thread);
              setup.updates[member].value += 1;
              break;
            case StreamKernel::stencil:
              stencil_kernel(b + lo, a + lo, kStencilScalar, per_thread);
              break;
          }
          benchmark::ClobberMemory();
        }
      };
      team.run_benchmark_loop(state, work);

      // Check what the kernel computed: a wrong result means a wrong measurement.
      bool right = true;
      for (std::size_t i = 0; i < n && right; ++i) {
        switch (traffic.kernel) {
          case StreamKernel::read:
            break;
          case StreamKernel::write:
            right = a[i] == kWriteValue;
            break;
          case StreamKernel::copy:
            right = b[i] == initial_a(i);
            break;
          case StreamKernel::triad:
            right = a[i] == initial_b(i) + kTriadScalar * initial_c(i);
            break;
          case StreamKernel::update:  // small whole numbers: exact whatever the passes
            right = a[i] == initial_a(i) + setup.updates[i / per_thread].value * kUpdateScalar *
                                               (initial_c(i) + 1);
            break;
          case StreamKernel::stencil: {  // each slice's ends stay as they were
            const std::size_t at = i % per_thread;
            right = at < traffic.ends || at + traffic.ends >= per_thread
                        ? b[i] == -1.0
                        : b[i] == initial_a(i) +
                                      kStencilScalar *
                                          (initial_a(i - 1) - 2 * initial_a(i) + initial_a(i + 1));
            break;
          }
        }
      }
      if (traffic.kernel == StreamKernel::read) {
        for (const MemberResult& sum : sums)
          right = right && sum.value == static_cast<double>(per_thread);
      }
      if (!right) {
        state.SkipWithError(
            fmt::format("the {} kernel computed a wrong result", traffic.name).c_str());
        return;
      }
      // The points computed: a stencil leaves each slice's ends alone.
      const std::size_t computed = n - 2 * std::size_t{traffic.ends} * threads;
      state.counters["bytes_per_second"] = benchmark::Counter(
          static_cast<double>(traffic.bytes_per_element()) * static_cast<double>(computed * passes),
          benchmark::Counter::kIsIterationInvariantRate);
      record_counts(state, team.counted(), "element", static_cast<double>(computed * passes),
                    derived);
      if (traffic.flops > 0) {
        state.counters["flops_per_second"] = benchmark::Counter(
            static_cast<double>(traffic.flops) * static_cast<double>(computed * passes),
            benchmark::Counter::kIsIterationInvariantRate);
      }
    };
    register_benchmark(registry, name, run,
                       {{param::suite, "memory"},
                        {param::part, bandwidth_part(threads)},
                        {param::kernel, traffic.name},
                        {"formula", traffic.formula},
                        {param::page_policy, "base"},
                        {"page_bytes", base_page_bytes()},
                        {param::working_set_bytes, bytes},
                        {"requested_working_set_bytes", requested},
                        {"arrays", traffic.arrays},
                        {"elements_per_thread", per_thread},
                        {param::bytes_per_element, traffic.bytes_per_element()},
                        {"loads_per_element", traffic.loads},
                        {"stores_per_element", traffic.stores},
                        {"flops_per_element", traffic.flops},
                        {"passes_per_iteration", passes},
                        {param::threads, threads},
                        {"cores", cores},
                        {"stores", "regular"},
                        {"counts", count_sources(pattern)}},
                       plan.repetitions, plan.min_time_seconds)
        ->UseManualTime();
  }
}

// The read and write kernels with every vector access misaligned (8 B past a line), one thread,
// at the sweep's sizes inside half of L1: what a loop over u[i - 1] or a malloc'd array pays
// beyond aligned loads and stores. The aligned kernels' own sizes give their rates beside them.
void register_misaligned(const MemorySuitePlan& plan, const Topology& topology,
                         ParamRegistry& registry) {
  if (topology.data_caches().empty()) return;
  const std::uint64_t l1_bytes = topology.data_caches().front().size_bytes;
  const std::vector<unsigned> cores = first_cores(1);
  for (const std::string_view kernel : {"read-misaligned", "write-misaligned"}) {
    const bool read = kernel == "read-misaligned";
    for (std::uint64_t requested : plan.working_sets) {
      if (requested > l1_bytes / 2) continue;
      const std::size_t n = std::max<std::size_t>(64, requested / 8 / 64 * 64);
      const std::uint64_t bytes = 8ull * n;
      const std::uint64_t passes =
          std::max<std::uint64_t>(1, (kBandwidthBytesPerThreadPerIteration + bytes - 1) / bytes);
      const std::string name =
          fmt::format("memory.bandwidth.{}/threads:1/ws:{}", kernel, requested);
      const AccessPattern pattern{{{bytes, 8, !read, false}}, 1, false};
      const std::optional<Counts> derived = derive_on(topology, pattern);
      auto run = [=, &topology](benchmark::State& state) {
        drop_kept_setups();
        ThreadTeam team(topology, cores);
        // 8 B past the page's first line: every vector of 16 B or more is misaligned.
        PageBuffer buffer(bytes + 64, PagePolicy::base);
        double* a = reinterpret_cast<double*>(static_cast<char*>(buffer.data()) + 8);
        team.run([&](unsigned) {
          for (std::size_t i = 0; i < n; ++i) a[i] = read ? 1.0 : 0.0;
        });
        MemberResult sum;
        team.run_benchmark_loop(state, [&](unsigned) {
          for (std::uint64_t pass = 0; pass < passes; ++pass) {
            if (read) {
              sum.value = misaligned_read_kernel(a, n);  // compiled apart: no pass is dropped
            } else {
              misaligned_write_kernel(a, n, kWriteValue);
            }
            benchmark::ClobberMemory();
          }
        });
        const bool right = read ? sum.value == static_cast<double>(n)
                                : std::all_of(a, a + n, [](double x) { return x == kWriteValue; });
        if (!right) {
          state.SkipWithError(fmt::format("the {} kernel computed a wrong result", kernel).c_str());
          return;
        }
        state.counters["bytes_per_second"] = benchmark::Counter(
            8.0 * static_cast<double>(n * passes), benchmark::Counter::kIsIterationInvariantRate);
        record_counts(state, team.counted(), "element", static_cast<double>(n * passes), derived);
      };
      register_benchmark(registry, name, run,
                         {{param::suite, "memory"},
                          {param::part, bandwidth_part(1)},
                          {param::kernel, std::string(kernel)},
                          {"formula", read ? "s += a[i], vectors 8 B past a line"
                                           : "a[i] = s, vectors 8 B past a line"},
                          {"vector_bytes", vector_bytes()},
                          {"offset_bytes", 8},
                          {param::page_policy, "base"},
                          {"page_bytes", base_page_bytes()},
                          {param::working_set_bytes, bytes},
                          {"requested_working_set_bytes", requested},
                          {"arrays", 1},
                          {"elements_per_thread", n},
                          {param::bytes_per_element, 8},
                          {"loads_per_element", read ? 1 : 0},
                          {"stores_per_element", read ? 0 : 1},
                          {"flops_per_element", read ? 1 : 0},
                          {"passes_per_iteration", passes},
                          {param::threads, 1},
                          {"cores", cores},
                          {"stores", "regular"},
                          {"counts", count_sources(pattern)}},
                         plan.repetitions, plan.min_time_seconds)
          ->UseManualTime();
    }
  }
}

// The team and matrices of one indexed benchmark, kept for all its repetitions as the streaming
// kernels' are. Each thread maps and first touches its own arrays, each starting a line, so that
// its pages sit on its NUMA node.
IndexedSetup& indexed_setup(const FivePointShape& shape, const std::vector<unsigned>& cores,
                            const Topology& topology) {
  const auto threads = static_cast<unsigned>(cores.size());
  if (indexed_cache && indexed_cache->threads == threads && indexed_cache->rows == shape.rows()) {
    return *indexed_cache;
  }
  drop_kept_setups();
  indexed_cache = std::make_unique<IndexedSetup>();
  IndexedSetup& setup = *indexed_cache;
  setup.team = std::make_unique<ThreadTeam>(topology, cores);
  setup.members.resize(threads);
  setup.threads = threads;
  setup.rows = shape.rows();
  setup.team->run([&setup, &shape](unsigned member) {
    const auto lined = [](std::size_t b) { return (b + 63) / 64 * 64; };
    const std::size_t rows = shape.rows(), nonzeros = shape.nonzeros();
    const std::size_t at_col = lined(4 * (rows + 1)), at_val = at_col + lined(4 * nonzeros);
    const std::size_t at_x = at_val + lined(8 * nonzeros), at_y = at_x + lined(8 * rows);
    IndexedMember& m = setup.members[member];
    m.buffer = PageBuffer(at_y + lined(8 * rows), PagePolicy::base);
    auto* base = static_cast<char*>(m.buffer.data());
    m.row = reinterpret_cast<std::int32_t*>(base);
    m.col = reinterpret_cast<std::int32_t*>(base + at_col);
    m.val = reinterpret_cast<double*>(base + at_val);
    m.x = reinterpret_cast<double*>(base + at_x);
    m.y = reinterpret_cast<double*>(base + at_y);
    build_five_point(shape, m.row, m.col, m.val);
    std::fill_n(m.x, rows, 1.0);
    std::fill_n(m.y, rows, -1.0);
  });
  return setup;
}

// The indexed kernel: a compressed-row sparse matrix-vector product over the 5-point Laplacian of a
// square grid sized to the working set, each thread its own. Fahringer and Pozgaj's (2000) kernel
// library holds pre-measured code patterns beside single operations; this one is the loop a sparse
// solver spends its time in, with what the streaming kernels lack: loads whose addresses come from
// loaded indices, and rows of dependent adds. Its own time and its transfers add rather than
// overlap (cg's product on a Zen 5 guest: 0.38 ns a nonzero from L2, 0.84 from DRAM, where its
// bytes at the read kernel's rate take 0.42). Rated in the bytes STREAM would count (12 a nonzero,
// 20 a row), so that a spreadsheet counting the same prices its traffic directly.
void register_indexed(const MemorySuitePlan& plan, unsigned threads, std::uint64_t requested,
                      const Topology& topology, ParamRegistry& registry) {
  const std::vector<unsigned> cores = first_cores(threads);
  const FivePointShape shape = five_point_shape(requested / threads);
  const std::uint64_t bytes = static_cast<std::uint64_t>(shape.footprint_bytes()) * threads;
  const double counted = shape.counted_bytes();
  const std::uint64_t passes = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(
             std::ceil(static_cast<double>(kBandwidthBytesPerThreadPerIteration) / counted)));
  const std::string name =
      fmt::format("memory.bandwidth.indexed/threads:{}/ws:{}", threads, requested);
  auto run = [=, &topology](benchmark::State& state) {
    IndexedSetup& cached = indexed_setup(shape, cores, topology);
    ThreadTeam& team = *cached.team;
    auto work = [&](unsigned member) {
      const IndexedMember& m = cached.members[member];
      for (std::uint64_t pass = 0; pass < passes; ++pass) {
        csr_product_kernel(m.row, m.col, m.val, m.x, m.y, shape.rows());
        benchmark::ClobberMemory();
      }
    };
    team.run_benchmark_loop(state, work);
    // With x all ones, each row's sum is 4 less its neighbours: exact in any order.
    for (const IndexedMember& m : cached.members) {
      for (std::size_t i = 0; i < shape.rows(); ++i) {
        if (m.y[i] != 4.0 - static_cast<double>(m.row[i + 1] - m.row[i] - 1)) {
          state.SkipWithError("the indexed kernel computed a wrong product");
          return;
        }
      }
    }
    state.counters["bytes_per_second"] =
        benchmark::Counter(counted * static_cast<double>(passes * threads),
                           benchmark::Counter::kIsIterationInvariantRate);
    state.counters["flops_per_second"] = benchmark::Counter(
        2.0 * static_cast<double>(shape.nonzeros()) * static_cast<double>(passes * threads),
        benchmark::Counter::kIsIterationInvariantRate);
    record_counts(state, team.counted(), "row",
                  static_cast<double>(shape.rows() * passes * threads), std::nullopt);
  };
  register_benchmark(
      registry, name, run,
      {{param::suite, "memory"},
       {param::part, bandwidth_part(threads)},
       {param::kernel, "indexed"},
       {"formula", "y[i] = sum over row i of val[k] * x[col[k]] (CSR, 5-point)"},
       {param::page_policy, "base"},
       {"page_bytes", base_page_bytes()},
       {param::working_set_bytes, bytes},
       {"requested_working_set_bytes", requested},
       {"grid_width", shape.width},
       {"grid_height", shape.height},
       {"rows_per_thread", shape.rows()},
       {"nonzeros_per_thread", shape.nonzeros()},
       // An element is a row: its share of the bytes counted, rounded.
       {param::bytes_per_element,
        static_cast<unsigned>(std::lround(counted / static_cast<double>(shape.rows())))},
       {"counted_bytes_per_pass", counted},
       {"passes_per_iteration", passes},
       {param::threads, threads},
       {"cores", cores},
       {"stores", "regular"},
       {"counts", count_sources(std::nullopt,
                                "the derived counts follow streams, not loads "
                                "indexed by loaded column numbers")}},
      plan.repetitions, plan.min_time_seconds)
      ->UseManualTime();
}

// Amato et al. (1999), section 3 and Table 1: one processor loading every s-th word of a sub-array
// sized for one level of the hierarchy (p1.sS.<level>.LE: loads, exclusive).
void register_stride(const MemorySuitePlan& plan, const Topology& topology,
                     ParamRegistry& registry) {
  struct Target {
    std::string level;
    std::uint64_t bytes;
  };
  std::vector<Target> targets;
  if (plan.quick) {
    targets.push_back({"l1", 16384});
  } else {
    for (const CacheLevel& cache : topology.data_caches()) {
      targets.push_back({fmt::format("l{}", cache.depth), cache.size_bytes / 2});
    }
    targets.push_back({"dram", plan.dram_bytes});
  }
  for (const Target& target : targets) {
    for (const std::size_t stride : plan.strides) {
      const std::size_t n = target.bytes / 8;
      const std::size_t touched = (n + stride - 1) / stride;
      const std::size_t passes = std::max<std::size_t>(1, kStrideAccessesPerIteration / touched);
      const std::string name = fmt::format("memory.stride/p1.s{}.{}.LE", stride, target.level);
      const AccessPattern pattern{{{8ull * n, 8ull * stride, false, false}}, 1, false};
      const std::optional<Counts> derived = derive_on(topology, pattern);
      auto run = [=](benchmark::State& state) {
        // One buffer serves every stride of a target and every run: it only holds 1.0.
        static std::unique_ptr<PageBuffer> cached;
        static std::size_t cached_words = 0;
        if (!cached || cached_words != n) {
          cached.reset();
          cached = std::make_unique<PageBuffer>(n * 8, PagePolicy::base);
          cached_words = n;
          std::fill_n(static_cast<double*>(cached->data()), n, 1.0);
        }
        auto* a = static_cast<double*>(cached->data());
        double sum = strided_read_kernel(a, n, stride);  // warm-up
        ScopedCounting counting;
        for (auto _ : state) {
          for (std::size_t pass = 0; pass < passes; ++pass) {
            sum = strided_read_kernel(a, n, stride);
            benchmark::DoNotOptimize(sum);
          }
        }
        const EventTotals& events = counting.stop();
        if (sum != static_cast<double>(touched)) {
          state.SkipWithError("the strided read computed a wrong sum");
          return;
        }
        using benchmark::Counter;
        const double accesses = static_cast<double>(touched * passes);
        state.counters["seconds_per_access"] =
            Counter(accesses, Counter::kIsIterationInvariantRate | Counter::kInvert);
        state.counters["bytes_per_second"] =
            Counter(8 * accesses, Counter::kIsIterationInvariantRate);
        record_counts(state, events, "access", accesses, derived);
      };
      register_benchmark(registry, name, run,
                         {{param::suite, "memory"},
                          {param::part, "stride"},
                          {param::kernel, "strided_read"},
                          {"experiment", fmt::format("p1.s{}.{}.LE", stride, target.level)},
                          {param::level_target, target.level},
                          {param::stride_words, stride},
                          {"word_bytes", 8},
                          {param::working_set_bytes, n * 8},
                          {"accesses_per_pass", touched},
                          {param::access, "load"},
                          {param::sharing, "exclusive"},
                          {param::page_policy, "base"},
                          {param::threads, 1},
                          {"cores", {0}},
                          {"counts", count_sources(pattern)}},
                         plan.repetitions, plan.min_time_seconds)
          ->UseRealTime();
    }
  }
}

// A team of threads on `cores` and a buffer of `per_thread_words` doubles for each, all 1.0, kept
// for the benchmarks after the one that made them while they ask for the same.
struct TeamBuffers {
  unsigned threads = 0;
  std::size_t per_thread_words = 0;
  std::unique_ptr<ThreadTeam> team;
  std::unique_ptr<PageBuffer> buffer;
};

void keep_team_buffers(TeamBuffers& cached, unsigned threads, std::size_t per_thread_words,
                       const Topology& topology, const std::vector<unsigned>& cores) {
  if (cached.threads == threads && cached.per_thread_words == per_thread_words) return;
  cached.buffer.reset();
  cached.team = std::make_unique<ThreadTeam>(topology, cores);
  cached.buffer = std::make_unique<PageBuffer>(per_thread_words * threads * 8, PagePolicy::base);
  cached.threads = threads;
  cached.per_thread_words = per_thread_words;
  auto* all = static_cast<double*>(cached.buffer->data());
  // Each thread first touches its own part, so that its pages sit on its NUMA node.
  cached.team->run([&](unsigned member) {
    std::fill_n(all + member * per_thread_words, per_thread_words, 1.0);
  });
}

// A walk down the columns of a row-major matrix, as a transposition or a column-ordered gather does
// it: each access a word of the next row, a new page and a new line; the next column reuses those
// lines only if the caches kept them. What a load costs follows the pages one column spans (the
// TLB's reach) and its lines (the caches'), so the walk is measured over a sweep of matrix sizes,
// a factor 2 apart, from kColumnMinRows rows to the 'dram' size: a factor 4 left a cache's step
// (2.1 ns a load at 8 MiB, 6.9 at 32 MiB on a Zen 5 guest) to an interpolation, where a
// transpose walking 16 MiB ran 1.5 times slower than predicted. Each thread walks its own matrix,
// one line's width of columns after the other (cycling through the row), so that an iteration
// costs the same at any size. Seconds per load of one thread, with `threads` walking at once.
void register_column(const MemorySuitePlan& plan, unsigned threads, const Topology& topology,
                     ParamRegistry& registry) {
  std::vector<std::uint64_t> sizes;  // per thread
  const std::uint64_t smallest = kColumnMinRows * kColumnRowBytes;
  // The 'dram' size itself ends the sweep (in whole rows), whatever the factors 2 reached below it.
  const std::uint64_t largest =
      plan.quick ? smallest : plan.dram_bytes / threads / kColumnRowBytes * kColumnRowBytes;
  for (std::uint64_t bytes = smallest; bytes < largest; bytes *= 2) sizes.push_back(bytes);
  if (largest >= smallest) sizes.push_back(largest);
  const std::vector<unsigned> cores = first_cores(threads);
  const std::size_t row_words = kColumnRowBytes / 8;
  const std::size_t line_words = std::max<std::size_t>(1, plan.line_bytes / 8);
  for (const std::uint64_t bytes : sizes) {
    const std::size_t rows = bytes / kColumnRowBytes;
    // Whole lines' width of columns per iteration, at least kColumnAccessesPerIteration accesses.
    const std::size_t columns =
        std::min(row_words, (kColumnAccessesPerIteration + rows * line_words - 1) /
                                (rows * line_words) * line_words);
    // A small matrix is walked several times over, so that an iteration has as many loads.
    const std::size_t passes =
        std::max<std::size_t>(1, kColumnAccessesPerIteration / (rows * columns));
    const std::size_t per_thread_words = rows * row_words;
    const std::string name = fmt::format("memory.column/threads:{}/ws:{}", threads, bytes);
    auto run = [=, &topology](benchmark::State& state) {
      // The team and matrices of one benchmark serve all its repetitions; they hold 1.0, so every
      // walk's sum is its count of loads.
      static TeamBuffers cached;
      keep_team_buffers(cached, threads, per_thread_words, topology, cores);
      ThreadTeam& team = *cached.team;
      const auto* all = static_cast<const double*>(cached.buffer->data());
      std::vector<std::size_t> next_column(threads, 0);
      std::vector<MemberResult> sums(threads);
      auto work = [&](unsigned member) {
        double sum = 0;
        for (std::size_t pass = 0; pass < passes; ++pass) {
          const std::size_t first = next_column[member];
          sum +=
              column_read_kernel(all + member * per_thread_words, rows, row_words, first, columns);
          next_column[member] = (first + columns) % row_words;
          if (next_column[member] + columns > row_words) next_column[member] = 0;
        }
        sums[member].value = sum;
      };
      team.run_benchmark_loop(state, work);
      for (const MemberResult& sum : sums) {
        if (sum.value != static_cast<double>(rows * columns * passes)) {
          state.SkipWithError("the column walk computed a wrong sum");
          return;
        }
      }
      using benchmark::Counter;
      state.counters[result_format::counter::seconds_per_load] =
          Counter(static_cast<double>(rows * columns * passes),
                  Counter::kIsIterationInvariantRate | Counter::kInvert);
      record_counts(state, team.counted(), "load",
                    static_cast<double>(rows * columns * passes * threads), std::nullopt);
    };
    register_benchmark(registry, name, run,
                       {{param::suite, "memory"},
                        {param::part, result_format::part::column},
                        {param::kernel, "column_read"},
                        {param::working_set_bytes, per_thread_words * 8},
                        {"row_bytes", kColumnRowBytes},
                        {"rows", rows},
                        {"columns_per_pass", columns},
                        {"passes_per_iteration", passes},
                        {"word_bytes", 8},
                        {param::page_policy, "base"},
                        {"page_bytes", base_page_bytes()},
                        {param::threads, threads},
                        {"cores", cores},
                        {"counts", count_sources(std::nullopt,
                                                 "which lines a walk finds again from one column "
                                                 "to the next depends on the caches' replacement, "
                                                 "which the derived counts do not follow")}},
                       plan.repetitions, plan.min_time_seconds)
        ->UseManualTime();
  }
}

constexpr std::size_t kGatherCopyWords = 512;  // the copy's buffer, 4 KiB: it stays in L1

// A gather of whole lines in an order no prefetcher follows, the loads independent of one another:
// what an FFT's bit-reversed reorder, an unstructured mesh's or a sparse product's irregular reads
// pay per line from memory, set by how many misses a core keeps in flight rather than by the
// latency (the chase) or the streaming rate (the bandwidth kernels). Each thread reads its own
// buffer of the 'dram' size (a power of two), one word a line, cut into blocks of a span; a block's
// lines are read in a random order of its own, the blocks one after the other, so the span says
// how far apart the reads scatter: within a few pages (the TLB holds them) up to the whole buffer.
// Spans a factor 4 apart, from one base page. Two loop shapes, since how many misses fit in the
// core's window depends on the instructions around them: `sum` adds the words (a reduction, the
// leanest loop), `copy` stores each in order into a small buffer (a pack or a scratch row; about
// 1.8 times the sum's time a line on a Zen 5 guest). Seconds per line of one thread, `threads`
// gathering at once.
void register_gather(const MemorySuitePlan& plan, unsigned threads, const Topology& topology,
                     ParamRegistry& registry) {
  const std::uint64_t line = std::max<std::uint64_t>(64, plan.line_bytes);
  const std::uint64_t page = std::max<std::uint64_t>(line, base_page_bytes());
  std::uint64_t buffer = page;  // per thread: the largest power of two up to the 'dram' size
  const std::uint64_t wanted = plan.quick ? 16 * page : plan.dram_bytes / threads;
  while (buffer * 2 <= wanted) buffer *= 2;
  std::vector<std::uint64_t> spans;
  for (std::uint64_t span = page; span < buffer; span *= 4) spans.push_back(span);
  spans.push_back(buffer);
  const std::vector<unsigned> cores = first_cores(threads);
  const std::size_t line_words = line / 8;
  const std::size_t per_thread_words = buffer / 8;
  for (const char* shape : {result_format::gather_shape::sum, result_format::gather_shape::copy}) {
    const bool copy = shape == std::string_view(result_format::gather_shape::copy);
    for (const std::uint64_t span : spans) {
      const std::size_t block_lines = span / line;
      const std::size_t blocks = buffer / span;
      const std::uint64_t seed = plan.seed + span;
      const std::string name =
          fmt::format("memory.gather.{}/threads:{}/ws:{}/span:{}", shape, threads, buffer, span);
      auto run = [=, &topology](benchmark::State& state) {
        // The team and buffers serve every span and shape of one thread count; they hold 1.0, so
        // every sum is its count of lines and every copied word is 1.0.
        static TeamBuffers cached;
        keep_team_buffers(cached, threads, per_thread_words, topology, cores);
        // A span's order serves all its repetitions (a shuffle of a whole buffer's lines takes
        // longer than a pass over them).
        struct Order {
          std::uint64_t seed = 0;
          std::size_t blocks = 0;
          std::vector<std::uint32_t> lines;
          std::vector<std::uint32_t> masks;
        };
        static Order visit;
        if (visit.seed != seed || visit.blocks != blocks || visit.lines.size() != block_lines) {
          std::mt19937_64 random(seed);
          visit.seed = seed;
          visit.blocks = blocks;
          visit.lines.resize(block_lines);
          std::iota(visit.lines.begin(), visit.lines.end(), 0u);
          std::shuffle(visit.lines.begin(), visit.lines.end(), random);
          visit.masks.resize(blocks);
          for (std::uint32_t& mask : visit.masks)
            mask = static_cast<std::uint32_t>(random() & (block_lines - 1));
        }
        const std::uint32_t* order = visit.lines.data();
        const std::uint32_t* masks = visit.masks.data();
        ThreadTeam& team = *cached.team;
        const auto* all = static_cast<const double*>(cached.buffer->data());
        struct alignas(64) CopyBuffer {
          std::array<double, kGatherCopyWords> words{};
        };
        std::vector<CopyBuffer> out(copy ? threads : 0);
        std::vector<MemberResult> sums(threads);
        auto work = [&](unsigned member) {
          const double* mine = all + member * per_thread_words;
          if (copy) {
            line_gather_copy_kernel(out[member].words.data(), kGatherCopyWords - 1, mine, blocks,
                                    block_lines, line_words, order, masks);
          } else {
            sums[member].value =
                line_gather_kernel(mine, blocks, block_lines, line_words, order, masks);
          }
        };
        team.run_benchmark_loop(state, work);
        const double lines = static_cast<double>(blocks * block_lines);
        const std::size_t copied = std::min(kGatherCopyWords, block_lines);
        for (unsigned member = 0; member < threads; ++member) {
          const bool right =
              copy ? std::all_of(out[member].words.begin(), out[member].words.begin() + copied,
                                 [](double w) { return w == 1.0; })
                   : sums[member].value == lines;
          if (!right) {
            state.SkipWithError(copy ? "the line gather stored a wrong word"
                                     : "the line gather computed a wrong sum");
            return;
          }
        }
        using benchmark::Counter;
        state.counters[result_format::counter::seconds_per_load] =
            Counter(lines, Counter::kIsIterationInvariantRate | Counter::kInvert);
        record_counts(state, team.counted(), "load", lines * threads, std::nullopt);
      };
      register_benchmark(
          registry, name, run,
          {{param::suite, "memory"},
           {param::part, result_format::part::gather},
           {param::kernel, "line_gather"},
           {"shape", shape},
           {param::working_set_bytes, buffer},
           {"span_bytes", span},
           {"lines_per_pass", blocks * block_lines},
           {"touches_buffer", !copy && span == spans.front()},
           {"line_bytes", line},
           {param::page_policy, "base"},
           {"page_bytes", base_page_bytes()},
           {param::threads, threads},
           {"cores", cores},
           {"counts",
            count_sources(std::nullopt, copy ? "the index table read beside the gathered lines "
                                               "(4 B a line, in order) and the stores into the "
                                               "copy's 4 KiB buffer are not in the counts"
                                             : "the index table read beside the gathered lines "
                                               "(4 B a line, in order) is not in the counts")}},
          plan.repetitions, plan.min_time_seconds)
          ->UseManualTime();
    }
  }
}

unsigned parse_thread_count(const std::string& text, unsigned cores) {
  if (text == "all") return cores;
  unsigned value = 0;
  try {
    std::size_t used = 0;
    const long parsed = std::stol(text, &used);
    if (used != text.size() || parsed <= 0) throw std::invalid_argument(text);
    value = static_cast<unsigned>(parsed);
  } catch (const std::exception&) {
    throw usage_error("--threads", fmt::format("'{}' is not a thread count; expected a positive "
                                               "whole number or 'all'",
                                               text));
  }
  if (value > cores) {
    throw usage_error("--threads", fmt::format("{} threads asked for, but this machine has {} "
                                               "cores (one bound thread per core)",
                                               value, cores));
  }
  return value;
}

}  // namespace

std::vector<std::string> memory_option_arguments(const MemorySuiteOptions& options) {
  std::vector<std::string> args = common_option_arguments(options.common);
  args.push_back("--min-working-set=" + options.min_working_set);
  if (!options.max_working_set.empty()) {
    args.push_back("--max-working-set=" + options.max_working_set);
  }
  if (!options.sizes.empty())
    args.push_back(fmt::format("--sizes={}", fmt::join(options.sizes, ",")));
  if (!options.threads.empty()) {
    args.push_back(fmt::format("--threads={}", fmt::join(options.threads, ",")));
  }
  args.push_back(fmt::format("--seed={}", options.seed));
  return args;
}

MemorySuitePlan plan_memory_suite(const MemorySuiteOptions& options, const Topology& topology,
                                  const Sizing& sizing) {
  MemorySuitePlan plan;
  plan.quick = options.common.quick;
  plan.update_kernel = options.common.quick || sizing.effort.update_kernel;
  plan.indexed_kernel = options.common.quick || sizing.effort.indexed_kernel;
  plan.stencil_kernel = options.common.quick || sizing.effort.stencil_kernel;
  plan.seed = options.seed;
  if (const auto line = topology.line_bytes()) {
    plan.line_bytes = *line;
    plan.line_bytes_source = "hwloc";
  } else if (const long line = ::sysconf(_SC_LEVEL1_DCACHE_LINESIZE); line > 0) {
    plan.line_bytes = static_cast<unsigned>(line);
    plan.line_bytes_source = "sysconf(_SC_LEVEL1_DCACHE_LINESIZE)";
  } else {
    throw io_error("cache line size", "neither hwloc nor the C library knows it on this machine");
  }

  const std::uint64_t min_bytes = parse_bytes(options.min_working_set, "--min-working-set");
  if (min_bytes < plan.line_bytes) {
    throw usage_error(
        "--min-working-set",
        fmt::format("{} is smaller than one cache line ({} B): a chase needs at least "
                    "one line",
                    format_bytes(static_cast<double>(min_bytes)), plan.line_bytes));
  }
  std::uint64_t max_bytes = 0;
  if (!options.max_working_set.empty()) {
    max_bytes = parse_bytes(options.max_working_set, "--max-working-set");
  } else if (options.common.quick) {
    max_bytes = std::max<std::uint64_t>(min_bytes, 65536);
  } else {
    max_bytes = std::max(min_bytes, sizing.sweep_max_bytes(topology));
  }
  if (max_bytes < min_bytes) {
    throw usage_error("--max-working-set",
                      fmt::format("{} is below --min-working-set ({})",
                                  format_bytes(static_cast<double>(max_bytes)),
                                  format_bytes(static_cast<double>(min_bytes))));
  }
  // Only sizes asked for explicitly are refused; the defaults above fit by construction.
  const std::uint64_t memory = sizing.usable.bytes;
  const auto refuse_beyond_memory = [&](std::uint64_t bytes, const char* option) {
    if (memory > 0 && 2 * bytes > memory) {
      throw usage_error(
          option, fmt::format("{} is more than half of the memory this process may "
                              "use ({}, bound by {})",
                              format_bytes(static_cast<double>(bytes)),
                              format_bytes(static_cast<double>(memory)), sizing.usable.bound_by));
    }
  };
  if (!options.max_working_set.empty()) refuse_beyond_memory(max_bytes, "--max-working-set");
  // Dense points where the run sizes the caches, and where hwloc claims them when that differs.
  std::vector<std::uint64_t> capacities;
  for (const CacheLevel& cache : topology.data_caches()) capacities.push_back(cache.size_bytes);
  for (const LevelCapacity& level : sizing.levels) {
    if (level.bytes != level.hwloc_bytes || !level.seen) capacities.push_back(level.hwloc_bytes);
  }
  SweepSpec spec;
  spec.min_bytes = min_bytes / plan.line_bytes * plan.line_bytes;
  spec.max_bytes = max_bytes / plan.line_bytes * plan.line_bytes;
  spec.granule_bytes = plan.line_bytes;
  spec.points_per_octave = sizing.effort.points_per_octave;
  spec.dense_points_per_octave = sizing.effort.dense_points_per_octave;
  if (options.common.quick) {
    spec.points_per_octave = 0.5;
    spec.dense_points_per_octave = 0;
  }
  plan.working_sets = working_set_sweep(capacities, spec);
  if (!options.sizes.empty()) {
    plan.working_sets.clear();
    for (const std::string& text : options.sizes) {
      const std::uint64_t bytes = parse_bytes(text, "--sizes");
      if (bytes < plan.line_bytes) {
        throw usage_error("--sizes",
                          fmt::format("{} is smaller than one cache line ({} B)",
                                      format_bytes(static_cast<double>(bytes)), plan.line_bytes));
      }
      refuse_beyond_memory(bytes, "--sizes");
      plan.working_sets.push_back(bytes / plan.line_bytes * plan.line_bytes);
    }
    std::sort(plan.working_sets.begin(), plan.working_sets.end());
    plan.working_sets.erase(std::unique(plan.working_sets.begin(), plan.working_sets.end()),
                            plan.working_sets.end());
  }

  const unsigned cores = std::max(1u, topology.cores());
  std::vector<std::string> thread_texts = options.threads;
  if (thread_texts.empty()) thread_texts = {"1", "all"};
  for (const std::string& text : thread_texts) {
    const unsigned count = parse_thread_count(text, cores);
    if (std::find(plan.thread_counts.begin(), plan.thread_counts.end(), count) ==
        plan.thread_counts.end()) {
      plan.thread_counts.push_back(count);
    }
  }
  std::sort(plan.thread_counts.begin(), plan.thread_counts.end());

  plan.repetitions = planned_repetitions(options.common, sizing);
  plan.min_time_seconds = planned_min_time(options.common, sizing, 0.03, 0.002);
  plan.huge_pages = huge_pages_available();
  plan.dram_bytes = options.common.quick ? 16384 : sizing.dram_bytes(topology);
  plan.strides = sizing.strides();
  plan.latency_max_bytes = plan.working_sets.empty() ? 0 : plan.working_sets.back();
  if (options.max_working_set.empty() && options.sizes.empty() && !options.common.quick) {
    // One instance of the last level as sized, or as hwloc claims it where that is larger: the
    // fit's memory plateau lies beyond both.
    const auto& caches = topology.data_caches();
    const double one_instance =
        caches.empty() ? 0.0
                       : static_cast<double>(sizing.dram_side_last_level_bytes(topology) /
                                             std::max(1u, caches.back().instances));
    plan.latency_max_bytes = std::min(
        plan.latency_max_bytes,
        std::max<std::uint64_t>(
            64ull << 20,
            static_cast<std::uint64_t>(sizing.effort.sweep_beyond_last_level * one_instance)));
  }

  // The probe runs only when named: it is `sonde characterize`'s first look, not a result.
  std::vector<std::string> asked = options.common.parts;
  if (const auto probe = std::find(asked.begin(), asked.end(), "probe"); probe != asked.end()) {
    asked.erase(probe);
    plan.parts.push_back("probe");
    plan.probe_working_sets = probe_working_sets(sizing, options.common.quick);
    if (asked.empty()) return plan;
  }
  for (const std::string& part : select_parts(asked, memory_part_names(plan))) {
    if (part == "latency-random-huge" && !plan.huge_pages) {
      plan.skipped_parts.push_back(fmt::format("{}: transparent huge pages are '{}' here", part,
                                               transparent_huge_page_mode()));
      continue;
    }
    plan.parts.push_back(part);
  }
  return plan;
}

std::vector<std::string> memory_part_names(const MemorySuitePlan& plan) {
  std::vector<std::string> names;
  for (const LatencyVariant& variant : kLatencyVariants) names.push_back(variant.part);
  if (!plan.thread_counts.empty() && plan.thread_counts.back() > 1)
    names.push_back(result_format::part::latency_loaded);
  for (unsigned threads : plan.thread_counts) names.push_back(bandwidth_part(threads));
  names.push_back("stride");
  names.push_back(result_format::part::column);
  names.push_back(result_format::part::gather);
  return names;
}

std::size_t register_memory_suite(const MemorySuitePlan& plan, const Topology& topology,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const auto selected = [&](const std::string& part) { return has_part(plan.parts, part); };
  const std::size_t before = registry.size();
  if (selected("probe")) register_probe(plan, clock, registry);
  for (const LatencyVariant& variant : kLatencyVariants) {
    if (selected(variant.part)) register_latency(plan, variant, clock, topology, registry);
  }
  if (selected(result_format::part::latency_loaded)) {
    register_loaded_latency(plan, plan.thread_counts.back(), clock, topology, registry);
  }
  for (unsigned threads : plan.thread_counts) {
    if (selected(bandwidth_part(threads))) {
      // Every kernel at one working set before the next set: a shared VM's memory moves between
      // states within a minute, and kernels swept one after the other read DRAM in different
      // states (a Zen 3 guest's one-core copy 13.3 GB/s beside its triad's 20.3: 0.65 times
      // it, 0.78 to 1.0 in three runs before). Measured side by side, they share the state the
      // drift probes and the part's triad tell.
      for (std::uint64_t requested : plan.working_sets) {
        register_bandwidth(plan, threads, requested, topology, registry);
        if (plan.indexed_kernel) register_indexed(plan, threads, requested, topology, registry);
      }
      if (threads == 1) register_misaligned(plan, topology, registry);
    }
  }
  if (selected("stride")) register_stride(plan, topology, registry);
  if (selected(result_format::part::column)) {
    for (unsigned threads : plan.thread_counts) register_column(plan, threads, topology, registry);
  }
  if (selected(result_format::part::gather)) {
    for (unsigned threads : plan.thread_counts) register_gather(plan, threads, topology, registry);
  }
  return registry.size() - before;
}

nlohmann::json to_json(const MemorySuitePlan& plan) {
  return {{"working_sets_bytes", plan.working_sets},
          {"thread_counts", plan.thread_counts},
          {"line_bytes", plan.line_bytes},
          {"line_bytes_source", plan.line_bytes_source},
          {"repetitions", plan.repetitions},
          {"min_time_seconds", plan.min_time_seconds},
          {"huge_pages_available", plan.huge_pages},
          {"parts", plan.parts},
          {"skipped_parts", plan.skipped_parts},
          {"probe_working_sets_bytes", plan.probe_working_sets},
          {"dram_bytes", plan.dram_bytes},
          {"latency_max_bytes", plan.latency_max_bytes},
          {"strides_words", plan.strides},
          {"seed", plan.seed},
          {"quick", plan.quick}};
}

}  // namespace sonde::microbench
