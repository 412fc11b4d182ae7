// The shared benchmark support: thread team, page buffers, clock, run context and result output.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/results.hpp"
#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"
#include "microbench/page_buffer.hpp"
#include "microbench/run_context.hpp"
#include "microbench/thread_team.hpp"

namespace sonde::microbench {
namespace {

TEST(ThreadTeam, RunsEveryMemberOnceOnItsOwnThread) {
  const Topology topology = Topology::from_system();
  std::vector<unsigned> cores;
  for (unsigned i = 0; i < topology.cores(); ++i) cores.push_back(i);
  ThreadTeam team(topology, cores);
  ASSERT_EQ(team.size(), topology.cores());
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> calls(team.size());
    std::vector<std::thread::id> ids(team.size());
    team.run([&](unsigned member) {
      calls[member]++;
      ids[member] = std::this_thread::get_id();
    });
    for (auto& count : calls) ASSERT_EQ(count.load(), 1);
    EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), team.size());
    EXPECT_EQ(ids[0], std::this_thread::get_id()) << "the caller is member 0";
  }
  const double seconds = team.run_timed([](unsigned) {
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i) x = x + 1;
  });
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 10);
}

TEST(ThreadTeam, RejectsCoresThatDoNotExist) {
  const Topology topology = Topology::from_system();
  EXPECT_THROW(ThreadTeam(topology, {0, topology.cores()}), Error);
}

TEST(PageBuffer, MapsAlignedUsableMemory) {
  PageBuffer base(10000, PagePolicy::base);
  ASSERT_NE(base.data(), nullptr);
  EXPECT_EQ(base.bytes() % base_page_bytes(), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(base.data()) % base_page_bytes(), 0u);
  std::memset(base.data(), 1, base.bytes());
  EXPECT_EQ(base.huge_page_fraction(), 0.0) << "base pages were asked for";
  if (huge_pages_available()) {
    PageBuffer huge(2 * huge_page_bytes(), PagePolicy::huge);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(huge.data()) % huge_page_bytes(), 0u);
    std::memset(huge.data(), 1, huge.bytes());
    const double fraction = huge.huge_page_fraction();
    EXPECT_GE(fraction, 0.0);
    EXPECT_LE(fraction, 1.0);
  }
  PageBuffer moved = std::move(base);
  EXPECT_NE(moved.data(), nullptr);
  EXPECT_EQ(base.data(), nullptr);
}

TEST(Clock, IsMeasuredOrReportedPlausibly) {
  const auto clock = measure_core_clock();
  if (!clock) GTEST_SKIP() << "no clock on this platform";
  EXPECT_GT(clock->hertz, 1e8);
  EXPECT_LT(clock->hertz, 1e10);
  EXPECT_FALSE(clock->source.empty());
}

TEST(RunContext, HoldsWhatAReaderNeeds) {
  const Topology topology = Topology::from_system();
  const nlohmann::json context =
      make_run_context("memory", topology, CoreClock{2.5e9, "test"}, {"prog", "--quick"});
  for (const char* key : {"sonde_version", "suite", "date_utc", "host", "compiler", "topology",
                          "clock", "pages", "command_line", "os"}) {
    EXPECT_TRUE(context.contains(key)) << key;
  }
  EXPECT_EQ(context["clock"]["hertz"], 2.5e9);
  EXPECT_FALSE(context["compiler"]["flags"].get<std::string>().empty());
  EXPECT_EQ(folder_safe("node 01/a:b"), "node-01-a-b");
}

TEST(BenchOutput, WritesGoogleBenchmarkJsonWithParamsAndContext) {
  const auto path = std::filesystem::temp_directory_path() / "sonde-bench-output-test.json";
  std::filesystem::remove(path);
  ParamRegistry registry;
  benchmark::RegisterBenchmark("test.constant",
                               [](benchmark::State& state) {
                                 for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
                                 state.counters["zero"] = 0;  // its coefficient of variation is 0/0
                               })
      ->Repetitions(2)
      ->Iterations(10);
  benchmark::RegisterBenchmark("test.failing", [](benchmark::State& state) {
    state.SkipWithError("deliberately");
    for (auto _ : state) {
    }
  })->Iterations(1);
  registry.add("test.constant", {{"kernel", "nothing"}, {"working_set_bytes", 64}});
  OutputOptions options;
  options.out = path;
  options.progress = true;
  const RunOutcome outcome = run_benchmarks(registry, {{"suite", "test"}}, options);
  benchmark::ClearRegisteredBenchmarks();
  EXPECT_EQ(outcome.benchmarks, 2u);
  EXPECT_EQ(outcome.failed, 1u);

  const ResultFile file = read_result_file(path);
  EXPECT_EQ(file.sonde_context()["suite"], "test");
  std::size_t with_params = 0;
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (record.run_name.rfind("test.constant", 0) == 0) {
      ASSERT_EQ(record.params["kernel"], "nothing") << record.name;
      ++with_params;
    }
  }
  EXPECT_GE(with_params, 2u + 4u) << "two repetitions and their aggregates";
  // The coefficient of variation of an all-zero counter is 0/0: null in the file, not a number.
  bool saw_cv = false;
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (record.aggregate_name == "cv" && record.run_name.rfind("test.constant", 0) == 0) {
      saw_cv = true;
      EXPECT_FALSE(record.counter("zero").has_value());
    }
  }
  EXPECT_TRUE(saw_cv);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sonde::microbench
