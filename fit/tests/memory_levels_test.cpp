#include "fit/memory_levels.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace sonde::fit {
namespace {

// The caches of the 2-core AMD EPYC VM: 48 KiB L1d and 1 MiB L2 per core, one 32 MiB L3.
nlohmann::json vm_topology() {
  return {{"cpu_model", "AMD EPYC"},
          {"summary", "2 cores"},
          {"caches",
           {{{"name", "L1d"},
             {"kind", "data"},
             {"size_bytes", 49152},
             {"instances", 2},
             {"cores_per_instance", 1}},
            {{"name", "L1i"},
             {"kind", "instruction"},
             {"size_bytes", 32768},
             {"instances", 2},
             {"cores_per_instance", 1}},
            {{"name", "L2"},
             {"kind", "unified"},
             {"size_bytes", 1048576},
             {"instances", 2},
             {"cores_per_instance", 1}},
            {{"name", "L3"},
             {"kind", "unified"},
             {"size_bytes", 33554432},
             {"instances", 1},
             {"cores_per_instance", 2}}}}};
}

nlohmann::json entry(const std::string& run, const std::string& aggregate, nlohmann::json counters,
                     nlohmann::json params) {
  nlohmann::json e = {{"name", run + (aggregate.empty() ? "" : "_" + aggregate)},
                      {"run_name", run},
                      {"run_type", aggregate.empty() ? "iteration" : "aggregate"},
                      {"iterations", 10},
                      {"real_time", 1.0},
                      {"cpu_time", 1.0},
                      {"time_unit", "us"},
                      {"params", params}};
  if (!aggregate.empty()) e["aggregate_name"] = aggregate;
  for (const auto& [key, value] : counters.items()) e[key] = value;
  return e;
}

ResultFile synthetic_run() {
  nlohmann::json benchmarks = nlohmann::json::array();
  // (working set, seconds per load): two points in L1's window, one between L1 and L2 that
  // belongs to no window, one each in L2, L3 and DRAM.
  const std::vector<std::pair<std::uint64_t, double>> latency{{4096, 1.0e-9},   {16384, 1.2e-9},
                                                              {49152, 2.0e-9},  {262144, 3.0e-9},
                                                              {8 << 20, 10e-9}, {256 << 20, 90e-9}};
  for (const auto& [bytes, seconds] : latency) {
    const std::string run = "memory.latency.random.base/ws:" + std::to_string(bytes);
    const nlohmann::json params = {{"kernel", "pointer_chase"},
                                   {"pattern", "random"},
                                   {"page_policy", "base"},
                                   {"working_set_bytes", bytes}};
    // Repetitions that disagree, and a median aggregate that the summary must prefer.
    benchmarks.push_back(entry(run, "", {{"seconds_per_load", seconds * 1.5}}, params));
    benchmarks.push_back(entry(run, "", {{"seconds_per_load", seconds * 0.5}}, params));
    benchmarks.push_back(
        entry(run, "median", {{"seconds_per_load", seconds}, {"cycles_per_load", seconds * 2.5e9}},
              params));
    // The same chase with two threads at once, ten times slower: a level's latency is one
    // thread's, so none of these may reach a plateau.
    nlohmann::json loaded = params;
    loaded["threads"] = 2;
    benchmarks.push_back(entry("memory.latency.random.base/threads:2/ws:" + std::to_string(bytes),
                               "median", {{"seconds_per_load", 10 * seconds}}, loaded));
  }
  // Two-thread triad: L1 window for two threads reaches 48 KiB, L2's starts at 192 KiB. 2 MiB
  // lies between the L2's window (to 1 MiB for two threads) and the L3's (from 4 MiB). At
  // 128 MiB the two threads still get help from a cache larger in effect than hwloc says: faster
  // than DRAM, and not part of its plateau.
  for (const auto& [bytes, rate] :
       std::vector<std::pair<std::uint64_t, double>>{{32768, 400e9},
                                                     {524288, 150e9},
                                                     {2 << 20, 90e9},
                                                     {128 << 20, 70e9},
                                                     {256 << 20, 40e9},
                                                     {384 << 20, 42e9}}) {
    const std::string run = "memory.bandwidth.triad/threads:2/ws:" + std::to_string(bytes);
    benchmarks.push_back(entry(run, "", {{"bytes_per_second", rate}},
                               {{"kernel", "triad"},
                                {"threads", 2},
                                {"bytes_per_element", 24},
                                {"working_set_bytes", bytes}}));
  }
  nlohmann::json document = {{"context",
                              {{"sonde",
                                {{"suite", "memory"},
                                 {"host", "vm"},
                                 {"topology", vm_topology()},
                                 {"clock", {{"hertz", 2.5e9}, {"source", "test"}}}}}}},
                             {"benchmarks", benchmarks}};
  return parse_result_json(document.dump(), "synthetic.json");
}

TEST(LevelWindows, FollowTheCapacitiesThreadsCanUse) {
  const auto one = level_windows(vm_topology(), 1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].level, "L1d");
  EXPECT_EQ(one[0].lo_bytes, 0u);
  EXPECT_EQ(*one[0].hi_bytes, 24576u);
  EXPECT_EQ(one[1].lo_bytes, 98304u);
  EXPECT_EQ(*one[1].hi_bytes, 524288u);
  EXPECT_EQ(one[2].lo_bytes, 2u << 20);
  EXPECT_EQ(one[3].level, "DRAM");
  EXPECT_EQ(one[3].lo_bytes, 128u << 20);
  EXPECT_FALSE(one[3].hi_bytes);
  const auto two = level_windows(vm_topology(), 2);
  EXPECT_EQ(*two[0].hi_bytes, 49152u) << "two private L1s";
  EXPECT_EQ(two[2].capacity_bytes, 32u << 20) << "one shared L3";
}

// An L3 less than 4 times the L2 (the 16-core node: L2 2 MiB, L3 sized 5.55 MiB by the probe)
// keeps a window between them, narrowed to the fourth root of their ratio; with 16 threads the
// 16 private L2s hold more than the one L3 and it has none.
TEST(LevelWindows, ALevelCloseToItsInnerOneKeepsANarrowerWindow) {
  nlohmann::json topology = vm_topology();
  topology["caches"][2]["size_bytes"] = 2u << 20;
  topology["caches"][3]["size_bytes"] = 5818048;
  const auto one = level_windows(topology, 1);
  ASSERT_EQ(one.size(), 4u);
  const double margin = std::pow(5818048.0 / (2 << 20), 0.25);
  EXPECT_EQ(one[2].lo_bytes, static_cast<std::uint64_t>((2 << 20) * margin));
  EXPECT_EQ(*one[2].hi_bytes, static_cast<std::uint64_t>(5818048 / margin));
  EXPECT_TRUE(one[2].contains(3u << 20));
  EXPECT_EQ(*one[1].hi_bytes, 1u << 20) << "L2 keeps a factor 2 from L1";
  topology["caches"][2]["instances"] = 16;
  const auto sixteen = level_windows(topology, 16);
  EXPECT_FALSE(sixteen[2].contains(3u << 20));
  EXPECT_FALSE(sixteen[2].contains(64u << 20));
}

// The probe sized the Zen 5 guest's L3 at 10 MiB where hwloc claims 32 (2026-11-26): memory's
// window starts beyond 4 times the claim, not 4 times the probe's step, where two threads still
// streamed 80 MiB at 2.3 times their memory's rate; a claim far beyond the truth is capped at half
// the sweep's largest buffer, so that DRAM keeps points.
TEST(LevelWindows, MemoryLiesBeyondHwlocsClaimToo) {
  nlohmann::json context = {
      {"topology", vm_topology()},
      {"sizing",
       {{"max_buffer_bytes", 6ull << 30}, {"levels", {{{"name", "L3"}, {"bytes", 10u << 20}}}}}}};
  const nlohmann::json sized = sized_topology_json(context);
  EXPECT_EQ(sized["caches"][3]["size_bytes"], 10u << 20);
  EXPECT_EQ(sized["caches"][3]["claimed_bytes"], 32u << 20);
  const auto one = level_windows(sized, 1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(*one[2].hi_bytes, 5u << 20) << "the L3's own window follows the probe";
  EXPECT_EQ(one[3].lo_bytes, 128u << 20) << "4 x 32 MiB, not 4 x 10 MiB";
  context["sizing"]["max_buffer_bytes"] = 160ull << 20;
  EXPECT_EQ(level_windows(sized_topology_json(context), 1)[3].lo_bytes, 80u << 20);
  // Sized as claimed: as before, 4 times the level.
  context["sizing"]["levels"][0]["bytes"] = 32u << 20;
  EXPECT_EQ(level_windows(sized_topology_json(context), 1)[3].lo_bytes, 128u << 20);
}

TEST(MemorySummary, TakesMediansOverEachWindow) {
  const MemorySummary summary = summarize_memory({synthetic_run()});
  ASSERT_EQ(summary.levels.size(), 4u);
  const Plateau& l1 = summary.levels[0].latency_seconds.at("random.base");
  EXPECT_EQ(l1.sizes, 2u);
  EXPECT_DOUBLE_EQ(l1.median, 1.1e-9);
  EXPECT_DOUBLE_EQ(l1.min, 1.0e-9);
  EXPECT_DOUBLE_EQ(l1.max, 1.2e-9);
  EXPECT_DOUBLE_EQ(summary.levels[0].latency_cycles.at("random.base").median, 1.1e-9 * 2.5e9);
  EXPECT_DOUBLE_EQ(summary.levels[1].latency_seconds.at("random.base").median, 3e-9);
  EXPECT_DOUBLE_EQ(summary.levels[2].latency_seconds.at("random.base").median, 10e-9);
  EXPECT_DOUBLE_EQ(summary.levels[3].latency_seconds.at("random.base").median, 90e-9);
  EXPECT_DOUBLE_EQ(summary.levels[0].bytes_per_second.at("triad/2").median, 400e9);
  EXPECT_DOUBLE_EQ(summary.levels[1].bytes_per_second.at("triad/2").median, 150e9);
  EXPECT_DOUBLE_EQ(summary.levels[3].bytes_per_second.at("triad/2").median, 41e9);
  EXPECT_EQ(summary.levels[3].bytes_per_second.at("triad/2").sizes, 2u);
  // Every size in memory's window stays in the sweep, the 128 MiB the plateau left out too.
  ASSERT_EQ(summary.dram_bandwidth.size(), 3u);
  EXPECT_EQ(summary.dram_bandwidth[0].bytes, 128u << 20);
  EXPECT_DOUBLE_EQ(summary.dram_bandwidth[0].median, 70e9);
  EXPECT_EQ(summary.dram_bandwidth[0].kernel, "triad");
  EXPECT_EQ(summary.dram_bandwidth[0].threads, 2u);
  EXPECT_EQ(summary.thread_counts, std::vector<unsigned>{2});
  // The 2 MiB point lies on the edge from L2 to L3, which the windows for two threads bound.
  ASSERT_EQ(summary.cache_edges.size(), 1u);
  const CacheEdgeSample& edge = summary.cache_edges[0];
  EXPECT_EQ(edge.level, "L2");
  EXPECT_EQ(edge.next, "L3");
  EXPECT_EQ(edge.from_bytes, 1u << 20);
  EXPECT_EQ(edge.to_bytes, 4u << 20);
  EXPECT_EQ(edge.bytes, 2u << 20);
  EXPECT_EQ(edge.kernel, "triad");
  EXPECT_EQ(edge.threads, 2u);
  EXPECT_DOUBLE_EQ(edge.median, 90e9);
  EXPECT_DOUBLE_EQ(summary.levels[1].bytes_per_second.at("triad/2").median, 150e9)
      << "an edge's point is no part of either plateau";
  const std::string text = format_memory_summary(summary);
  EXPECT_NE(text.find("1.10 ns 2.8 cyc"), std::string::npos) << text;
  EXPECT_NE(text.find("41.0 GB/s"), std::string::npos) << text;
  EXPECT_EQ(to_json(summary)["levels"][3]["level"], "DRAM");
}

TEST(MemorySummary, KernelsOutsideTheColumnsGetALineEach) {
  MemorySummary summary;
  summary.thread_counts = {1};
  LevelSummary l1;
  l1.window = {"L1d", 48u << 10, 0, 24u << 10};
  l1.bytes_per_second["read/1"].median = 363e9;
  l1.bytes_per_second["read-misaligned/1"].median = 213e9;
  l1.bytes_per_second["write-misaligned/1"].median = 208e9;
  summary.levels = {l1};
  const std::string text = format_memory_summary(summary);
  EXPECT_NE(text.find("L1d    read-misaligned: 213 GB/s\nL1d    write-misaligned: 208 GB/s\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("363 GB/s"), std::string::npos) << text;  // read stays in its column
}

TEST(MemorySummary, APlateauEndsWhereTheCacheEndsInEffect) {
  // An L3 that hwloc reports as 32 MiB but that holds only about 6 MiB here (shared with other
  // tenants): the sizes beyond are at DRAM latency and are not the L3 plateau.
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& [bytes, seconds] :
       std::vector<std::pair<std::uint64_t, double>>{{2 << 20, 12e-9},
                                                     {3 << 20, 12.5e-9},
                                                     {4 << 20, 13e-9},
                                                     {6 << 20, 14e-9},
                                                     {8 << 20, 120e-9},
                                                     {12 << 20, 140e-9},
                                                     {16 << 20, 145e-9}}) {
    benchmarks.push_back(entry("l3/" + std::to_string(bytes), "median",
                               {{"seconds_per_load", seconds}},
                               {{"kernel", "pointer_chase"},
                                {"pattern", "random"},
                                {"page_policy", "base"},
                                {"working_set_bytes", bytes}}));
  }
  nlohmann::json document = {
      {"context", {{"sonde", {{"suite", "memory"}, {"topology", vm_topology()}}}}},
      {"benchmarks", benchmarks}};
  const MemorySummary summary = summarize_memory({parse_result_json(document.dump(), "l3.json")});
  const Plateau& l3 = summary.levels[2].latency_seconds.at("random.base");
  EXPECT_EQ(l3.sizes_in_window, 7u);
  EXPECT_EQ(l3.sizes, 4u);
  EXPECT_DOUBLE_EQ(l3.median, 12.75e-9);
  EXPECT_EQ(l3.flat_up_to_bytes, 6u << 20);
  EXPECT_NE(format_memory_summary(summary).find("flat only to 6 MiB (4 of 7 sizes)"),
            std::string::npos)
      << format_memory_summary(summary);
}

TEST(MemorySummary, ResultsWithoutParametersAreAClearError) {
  nlohmann::json document = {
      {"context", {{"sonde", {{"suite", "memory"}, {"topology", vm_topology()}}}}},
      {"benchmarks",
       {entry("x", "median", {{"seconds_per_load", 1e-9}}, {{"kernel", "pointer_chase"}})}}};
  try {
    summarize_memory({parse_result_json(document.dump(), "partial.json")});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("partial.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("working_set_bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(summarize_memory({}), Error);
}

}  // namespace
}  // namespace sonde::fit
