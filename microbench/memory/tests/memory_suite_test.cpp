#include "microbench/memory/memory_suite.hpp"
#include <CLI/CLI.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"

namespace sonde::microbench {
namespace {

constexpr const char* kBigMachine =
    "pack:2 numa:2(memory=68719476736) l3:4(size=33554432) l2:4(size=1048576) "
    "l1d:1(size=49152) core:1 pu:2";

// The machine as it comes: every byte of its NUMA memory may be used.
Sizing sizing_of(const Topology& topology) {
  return default_sizing(
      topology, {topology.total_memory_bytes(), "hwloc NUMA memory", {"hwloc NUMA memory"}});
}

std::string usage_message(const MemorySuiteOptions& options, const Topology& topology) {
  try {
    plan_memory_suite(options, topology, sizing_of(topology));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(MemorySuitePlan, SizesComeFromTheCaches) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  const MemorySuitePlan plan = plan_memory_suite({}, topology, sizing_of(topology));
  EXPECT_EQ(plan.line_bytes, 64u);
  EXPECT_EQ(plan.working_sets.front(), 4096u);
  // Eight times the whole last level: sixteen 32 MiB slices.
  EXPECT_EQ(plan.working_sets.back(), 8ull * 16 * (32 << 20));
  EXPECT_EQ(plan.thread_counts, (std::vector<unsigned>{1, 64}));
  for (std::uint64_t capacity : {49152ull, 1ull << 20, 32ull << 20}) {
    EXPECT_TRUE(std::binary_search(plan.working_sets.begin(), plan.working_sets.end(), capacity));
  }
  const auto parts = memory_part_names(plan);
  EXPECT_NE(std::find(parts.begin(), parts.end(), "bandwidth-t64"), parts.end());
  EXPECT_EQ(plan.repetitions, 5);
  // The chase with every core at once, only where there is more than one thread to run.
  EXPECT_NE(std::find(parts.begin(), parts.end(), "latency-random-loaded"), parts.end());
  MemorySuiteOptions one_thread;
  one_thread.threads = {"1"};
  const auto alone =
      memory_part_names(plan_memory_suite(one_thread, topology, sizing_of(topology)));
  EXPECT_EQ(std::find(alone.begin(), alone.end(), "latency-random-loaded"), alone.end());
}

TEST(MemorySuitePlan, BadOptionsNameTheOption) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  MemorySuiteOptions options;
  options.min_working_set = "32";
  EXPECT_NE(usage_message(options, topology)
                .find("--min-working-set: 32 B is smaller than one cache line"),
            std::string::npos);
  options = {};
  options.threads = {"65"};
  EXPECT_NE(
      usage_message(options, topology).find("65 threads asked for, but this machine has 64 cores"),
      std::string::npos);
  options.threads = {"0"};
  EXPECT_NE(usage_message(options, topology).find("--threads"), std::string::npos);
  options = {};
  options.max_working_set = "1TiB";
  EXPECT_NE(
      usage_message(options, topology).find("more than half of the memory this process may use"),
      std::string::npos);
  options.max_working_set = "1KiB";
  EXPECT_NE(usage_message(options, topology).find("below --min-working-set"), std::string::npos);
  options = {};
  options.common.parts = {"latency-random-base", "bogus"};
  EXPECT_NE(usage_message(options, topology).find("unknown part 'bogus'"), std::string::npos);
}

TEST(MemorySuitePlan, PartsCanBeChosenAndOptionsRoundTrip) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  MemorySuiteOptions options;
  options.common.parts = {"stride", "bandwidth-t1"};
  options.threads = {"1", "all", "1"};
  options.common.quick = true;
  const MemorySuitePlan plan = plan_memory_suite(options, topology, sizing_of(topology));
  EXPECT_EQ(plan.parts, (std::vector<std::string>{"bandwidth-t1", "stride"}));
  EXPECT_EQ(plan.thread_counts, (std::vector<unsigned>{1, 64}));
  EXPECT_EQ(plan.working_sets, (std::vector<std::uint64_t>{4096, 16384, 65536}));

  CLI::App app;
  MemorySuiteOptions parsed;
  add_memory_options(app, parsed);
  std::vector<std::string> args = memory_option_arguments(options);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  EXPECT_EQ(parsed.common.quick, options.common.quick);
  EXPECT_EQ(parsed.threads, options.threads);
  EXPECT_EQ(parsed.seed, options.seed);
}

}  // namespace
}  // namespace sonde::microbench
