// The profile's fitters on synthetic data with known answers: Amato et al.'s (1999) F weights
// recovered through 5% multiplicative noise (normal, sigma 5%, fixed seeds; every weight within
// 10%), the g-parameters taken from the experiments the paper names, a cache capacity found where
// the latency curve steps (exact, worked by hand), and Xu and Hwang's (1995) overhead forms t = c n
// + d and t = c log n + d told apart and recovered (c and d within 10%).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/run_records.hpp"
#include "fit/contention_fit.hpp"
#include "fit/profile_builder.hpp"
#include "model/model_forms.hpp"
#include "model/overlap.hpp"

namespace sonde::fit {
namespace {

using namespace model;

// A machine whose per-event costs are known (seconds per event).
const std::map<std::string, double> kF1 = {{"accesses", 0.2e-9},      {"l1_misses", 1.0e-9},
                                           {"l2_misses", 3.0e-9},     {"llc_misses", 60e-9},
                                           {"l1_writebacks", 1.5e-9}, {"llc_writebacks", 20e-9}};
const double kF2Misses = 90e-9, kF2Writebacks = 30e-9;

// Counts per access of a p-thread strided sweep sized for `level`, as the derived model gives
// them: a stride of s words touches a new 8-word line every 8/s accesses (every access from s = 8
// on), and the line misses every level inside the one the sub-array is sized for.
std::map<std::string, double> counts(unsigned stride, const std::string& level, bool store) {
  const double new_line = std::min(1.0, stride / 8.0);
  const int depth = level == "l1" ? 0 : level == "l2" ? 1 : level == "l3" ? 2 : 3;
  std::map<std::string, double> c = {{"loads", store ? 0.0 : 1.0}, {"stores", store ? 1.0 : 0.0}};
  c["l1_misses"] = depth >= 1 ? new_line : 0;
  c["l2_misses"] = depth >= 2 ? new_line : 0;
  c["llc_misses"] = depth >= 3 ? new_line : 0;
  c["l1_writebacks"] = store ? c["l1_misses"] : 0;
  c["llc_writebacks"] = store ? c["llc_misses"] : 0;
  return c;
}

double f1_seconds(const std::map<std::string, double>& c) {
  double t = kF1.at("accesses") * (c.at("loads") + c.at("stores"));
  for (const char* term :
       {"l1_misses", "l2_misses", "llc_misses", "l1_writebacks", "llc_writebacks"}) {
    t += kF1.at(term) * c.at(term);
  }
  return t;
}

ContentionInput synthetic_machine(std::uint64_t seed, unsigned threads) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, 0.05);
  ContentionInput input;
  input.counts_source = "derived";
  input.line_words = 8;
  for (unsigned p : {1u, threads}) {
    for (const char* level : {"l1", "l2", "l3", "dram"}) {
      for (unsigned stride = 1; stride <= 256; stride *= 2) {
        for (bool store : {false, true}) {
          for (bool concurrent : {false, true}) {
            AccessPoint a;
            a.threads = p;
            a.stride_words = stride;
            a.level = level;
            a.store = store;
            a.concurrent = concurrent;
            a.counts = counts(stride, level, store);
            a.name = fmt::format("contention/p{}.s{}.{}.{}{}", p, stride, level, store ? 'S' : 'L',
                                 concurrent ? 'C' : 'E');
            // One thread: F1. Every thread in memory: F2 (the bus), slower than one alone.
            double t = f1_seconds(a.counts);
            if (p > 1 && std::string(level) == "dram") {
              t = std::max(t, kF2Misses * a.counts["llc_misses"] +
                                  kF2Writebacks * a.counts["llc_writebacks"]);
            }
            if (concurrent) t *= 1.5;  // coherence traffic, which no F models
            a.seconds = t * (1 + noise(random));
            a.seconds_min = a.seconds * 0.98;
            a.seconds_max = a.seconds * 1.03;
            input.access.push_back(a);
          }
        }
      }
    }
  }
  input.one_word = {
      {"contention.one_word.load/threads:4", threads, "load", 0.4e-9, 0.39e-9, 0.41e-9},
      {"contention.one_word.store/threads:4", threads, "store", 40e-9, 38e-9, 45e-9}};
  return input;
}

TEST(ContentionFit, RecoversTheF1WeightsThroughNoise) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const ContentionFit fit = fit_contention(synthetic_machine(seed, 4));
    ASSERT_TRUE(fit.contention.f1) << seed;
    EXPECT_EQ(fit.contention.counts, "derived");
    for (const auto& [term, truth] : kF1) {
      ASSERT_TRUE(fit.contention.f1->count(term)) << term;
      const profile::Quantity& q = fit.contention.f1->at(term);
      EXPECT_NEAR(q.value, truth, 0.1 * truth) << term << " seed " << seed;
      EXPECT_EQ(q.origin, profile::Origin::fitted);
      EXPECT_EQ(q.unit, "s");
      ASSERT_TRUE(q.quality);
      EXPECT_LT(q.quality->mean_relative_error, 0.06);
      ASSERT_TRUE(q.interval) << term;
      EXPECT_LE(q.interval->low, q.value);
      EXPECT_GE(q.interval->high, q.value);
    }
  }
}

TEST(ContentionFit, RecoversF2AndScalesF3ByTheThreadsOfANode) {
  ContentionInput input = synthetic_machine(7, 4);
  input.threads_per_numa_node = 2;
  const ContentionFit fit = fit_contention(input);
  ASSERT_TRUE(fit.contention.f2 && fit.contention.f3);
  EXPECT_NEAR(fit.contention.f2->at("llc_misses").value, kF2Misses, 0.1 * kF2Misses);
  EXPECT_NEAR(fit.contention.f2->at("llc_writebacks").value, kF2Writebacks, 0.1 * kF2Writebacks);
  // F3 counts the misses of the two threads of one node: the same times, twice the counts.
  EXPECT_NEAR(fit.contention.f3->at("llc_misses").value,
              fit.contention.f2->at("llc_misses").value / 2, 1e-15);
  EXPECT_EQ(fit.contention.f3->at("llc_misses").origin, profile::Origin::fitted);
}

TEST(ContentionFit, F3OnOneNumaNodeIsDerivedFromF2NotFitted) {
  // One node serves all four threads: F3's counts are F2's times 4, its weights F2's over 4.
  const ContentionFit fit = fit_contention(synthetic_machine(7, 4));
  ASSERT_TRUE(fit.contention.f2 && fit.contention.f3);
  for (const auto& [term, f3] : *fit.contention.f3) {
    const profile::Quantity& f2 = fit.contention.f2->at(term);
    EXPECT_EQ(f3.origin, profile::Origin::derived) << term;
    EXPECT_DOUBLE_EQ(f3.value, f2.value / 4) << term;
    EXPECT_FALSE(f3.quality) << term << ": a derived value has no fit quality of its own";
    EXPECT_NE(f3.note.find("derived"), std::string::npos) << f3.note;
  }
}

TEST(ContentionFit, TakesEachGFromTheExperimentThePaperNames) {
  const ContentionInput input = synthetic_machine(11, 4);
  const ContentionFit fit = fit_contention(input);
  ASSERT_TRUE(fit.contention.qsm && fit.contention.ebsp && fit.contention.dxbsp);
  const auto seconds = [&](const std::string& name) {
    for (const AccessPoint& a : input.access)
      if (a.name == name) return a.seconds;
    ADD_FAILURE() << name;
    return 0.0;
  };
  const auto& qsm = *fit.contention.qsm;
  EXPECT_DOUBLE_EQ(qsm.g1_min.value, seconds("contention/p1.s1.l1.LE"));
  EXPECT_DOUBLE_EQ(qsm.g1_max.value, seconds("contention/p4.s256.dram.SC"));
  // K counts the accesses of all four threads to the one word.
  EXPECT_DOUBLE_EQ(qsm.g2_min.value, 0.4e-9 / 4);
  EXPECT_DOUBLE_EQ(qsm.g2_max.value, 40e-9 / 4);
  EXPECT_EQ(qsm.g2_max.origin, profile::Origin::derived);
  EXPECT_EQ(qsm.g1_max.interval->low, seconds("contention/p4.s256.dram.SC") * 0.98);
  EXPECT_EQ(fit.contention.ebsp->g1_max.value, seconds("contention/p1.s256.dram.SE"));
  // DXBSP's g1 max is a line per access (the paper's s32 on 128-byte lines) with all threads.
  EXPECT_EQ(fit.contention.dxbsp->g1_max.value, seconds("contention/p4.s8.dram.SC"));
  EXPECT_NE(fit.contention.dxbsp->g1_max.note.find("p8.s32.b1.SC"), std::string::npos);
}

TEST(ContentionFit, SaysWhatItCouldNotFit) {
  ContentionInput input = synthetic_machine(5, 4);
  std::erase_if(input.access, [](const AccessPoint& a) { return a.level == "dram"; });
  const ContentionFit fit = fit_contention(input);
  EXPECT_FALSE(fit.contention.qsm);
  EXPECT_FALSE(fit.contention.f2);
  ASSERT_FALSE(fit.not_fitted.empty());
  EXPECT_NE(fit.not_fitted.front().find("p4.s256.dram.SC"), std::string::npos)
      << fit.not_fitted.front();
}

TEST(ProfileBuilder, AResultLackingAKeyIsAnErrorNotADefault) {
  // An access experiment whose params say "thread_count" where the format says "threads": the
  // profile builder used to read it as one thread and fit F1 from a two-thread run.
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const char* aggregate : {"median", "min", "max"}) {
    benchmarks.push_back({{"name", std::string("contention/p2.s8.dram.SE_") + aggregate},
                          {"run_name", "contention/p2.s8.dram.SE"},
                          {"run_type", "aggregate"},
                          {"aggregate_name", aggregate},
                          {"iterations", 3},
                          {"real_time", 1.0},
                          {"cpu_time", 1.0},
                          {"time_unit", "ns"},
                          {"seconds_per_access", 4e-9},
                          {"params",
                           {{"suite", "contention"},
                            {"part", "access"},
                            {"thread_count", 2},
                            {"stride_words", 8},
                            {"level_target", "dram"},
                            {"access", "store"},
                            {"sharing", "exclusive"}}}});
  }
  const nlohmann::json document = {
      {"context",
       {{"sonde",
         {{"suite", "contention"},
          {"host", "h"},
          {"topology",
           {{"cores", 2}, {"numa_nodes", nlohmann::json::array({0})}, {"caches", {}}}}}}}},
      {"benchmarks", benchmarks}};
  const ResultFile file = parse_result_json(document.dump(), "contention-access.json");
  try {
    build_profile(read_run_records({file}), "m", "run");
    FAIL() << "a missing parameter was read as a default";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("contention-access.json"), std::string::npos) << message;
    EXPECT_NE(message.find("'threads'"), std::string::npos) << message;
  }
}

// A memory run's chases: one thread's over each working set, and (with `loaded`) two threads at
// once over some, far slower, as the part latency-random-loaded writes them.
std::filesystem::path chase_run(bool loaded) {
  nlohmann::json benchmarks = nlohmann::json::array();
  const auto add = [&](unsigned threads, std::uint64_t bytes, double seconds) {
    const std::string run =
        fmt::format("memory.latency.random.base/{}ws:{}",
                    threads > 1 ? fmt::format("threads:{}/", threads) : "", bytes);
    benchmarks.push_back({{"name", run + "_median"},
                          {"run_name", run},
                          {"run_type", "aggregate"},
                          {"aggregate_name", "median"},
                          {"iterations", 3},
                          {"real_time", 1.0},
                          {"cpu_time", 1.0},
                          {"time_unit", "ns"},
                          {"seconds_per_load", seconds},
                          {"params",
                           {{"suite", "memory"},
                            {"part", threads > 1 ? "latency-random-loaded" : "latency-random-base"},
                            {"kernel", "pointer_chase"},
                            {"pattern", "random"},
                            {"page_policy", "base"},
                            {"working_set_bytes", bytes},
                            {"threads", threads}}}});
  };
  // L1d 32 KiB at 1 ns, L2 1 MiB at 4 ns, then memory at 100 ns.
  for (const auto& [bytes, seconds] :
       std::vector<std::pair<std::uint64_t, double>>{{4096, 1e-9},
                                                     {16384, 1e-9},
                                                     {65536, 4e-9},
                                                     {262144, 4e-9},
                                                     {8u << 20, 100e-9},
                                                     {64u << 20, 100e-9}}) {
    add(1, bytes, seconds);
    // Two threads at once, 30 times as slow: were they mixed into the curve the capacities are
    // detected from, L1d's step would move.
    if (loaded && bytes <= 262144) add(2, bytes, 30 * seconds);
  }
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& [name, kind, bytes] :
       {std::tuple{"L1d", "data", 32768}, {"L2", "unified", 1048576}}) {
    caches.push_back({{"name", name},
                      {"kind", kind},
                      {"size_bytes", bytes},
                      {"line_bytes", 64},
                      {"associativity", 8},
                      {"instances", 2},
                      {"cores_per_instance", 1}});
  }
  const nlohmann::json document = {
      {"context",
       {{"sonde",
         {{"suite", "memory"},
          {"host", "h"},
          {"topology",
           {{"cores", 2}, {"numa_nodes", nlohmann::json::array({0})}, {"caches", caches}}}}}}},
      {"benchmarks", benchmarks}};
  const auto folder = std::filesystem::temp_directory_path() /
                      (loaded ? "sonde-fit-chase-loaded" : "sonde-fit-chase");
  std::filesystem::create_directories(folder);
  write_file_atomically(folder / "memory-latency-random-base.json", document.dump(1));
  return folder;
}

TEST(ProfileBuilder, TheRandomChaseCurveKeepsEveryThreadCountButCapacitiesComeFromOne) {
  const auto alone_run = chase_run(false), both_run = chase_run(true);
  const profile::Profile alone =
      build_profile(read_run_records(read_result_folder(alone_run)), "m", alone_run);
  const profile::Profile both =
      build_profile(read_run_records(read_result_folder(both_run)), "m", both_run);
  ASSERT_EQ(both.random_chase.size(), 10u);
  EXPECT_EQ(both.random_chase.front().threads, 1u);
  EXPECT_EQ(both.random_chase.back().threads, 2u);
  EXPECT_EQ(both.random_chase.back().working_set_bytes, 262144u);
  EXPECT_DOUBLE_EQ(both.random_chase.back().seconds.value, 120e-9);
  ASSERT_EQ(alone.memory.size(), both.memory.size());
  ASSERT_TRUE(alone.memory[0].detected_capacity);
  // The value in bytes or seconds, -1 where there is none.
  const auto value = [](const std::optional<profile::Quantity>& q) { return q ? q->value : -1.0; };
  for (std::size_t i = 0; i < alone.memory.size(); ++i) {
    EXPECT_EQ(value(alone.memory[i].latency), value(both.memory[i].latency))
        << alone.memory[i].name;
    EXPECT_EQ(value(alone.memory[i].detected_capacity), value(both.memory[i].detected_capacity))
        << alone.memory[i].name;
  }
}

// The chase run with a triad sweep beside it (two threads): each size's repetitions and their
// median, as the memory suite writes them. L2 is 1 MiB a core, so two threads' window in memory
// starts at 8 MiB.
TEST(ProfileBuilder, TheSweepInMemoryIsKeptAsACurveWithItsRepetitionsRanges) {
  const auto folder = chase_run(false);
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& [bytes, rate] : std::vector<std::pair<std::uint64_t, double>>{
           {524288, 200e9}, {16u << 20, 60e9}, {64u << 20, 50e9}, {1u << 30, 25e9}}) {
    const std::string run = fmt::format("memory.bandwidth.triad/threads:2/ws:{}", bytes);
    const nlohmann::json params = {{"suite", "memory"},       {"part", "bandwidth-t2"},
                                   {"kernel", "triad"},       {"threads", 2},
                                   {"bytes_per_element", 24}, {"working_set_bytes", bytes}};
    for (const auto& [aggregate, value] :
         {std::pair{"", 0.9 * rate}, {"", 1.2 * rate}, {"", rate}, {"median", rate}}) {
      nlohmann::json e = {{"name", run + (*aggregate ? std::string("_") + aggregate : "")},
                          {"run_name", run},
                          {"run_type", *aggregate ? "aggregate" : "iteration"},
                          {"iterations", 3},
                          {"real_time", 1.0},
                          {"cpu_time", 1.0},
                          {"time_unit", "ns"},
                          {"bytes_per_second", value},
                          {"params", params}};
      if (*aggregate) e["aggregate_name"] = aggregate;
      benchmarks.push_back(e);
    }
  }
  nlohmann::json document =
      nlohmann::json::parse(read_file(folder / "memory-latency-random-base.json"));
  document["benchmarks"] = benchmarks;
  write_file_atomically(folder / "memory-bandwidth-t2.json", document.dump(1));
  const profile::Profile p =
      build_profile(read_run_records(read_result_folder(folder)), "m", folder);
  std::filesystem::remove(folder / "memory-bandwidth-t2.json");
  // 512 KiB lies in L2: not in the curve. The three sizes from 16 MiB on are, in order.
  ASSERT_EQ(p.dram_bandwidth.size(), 3u);
  EXPECT_EQ(p.dram_bandwidth[0].working_set_bytes, 16u << 20);
  EXPECT_EQ(p.dram_bandwidth[2].working_set_bytes, 1u << 30);
  const profile::DramBandwidthPoint& first = p.dram_bandwidth[0];
  EXPECT_EQ(first.kernel, "triad");
  EXPECT_EQ(first.threads, 2u);
  EXPECT_DOUBLE_EQ(first.bytes_per_second.value, 60e9);
  ASSERT_TRUE(first.bytes_per_second.interval);
  EXPECT_DOUBLE_EQ(first.bytes_per_second.interval->low, 0.9 * 60e9);
  EXPECT_DOUBLE_EQ(first.bytes_per_second.interval->high, 1.2 * 60e9);
  EXPECT_EQ(first.bytes_per_second.origin, profile::Origin::measured);
  // The level's plateau is the slowest sizes' (1 GiB); the curve keeps the others. And the curve
  // survives the profile's file.
  EXPECT_DOUBLE_EQ(p.memory.back().bandwidth.at("triad/2").value, 25e9);
  EXPECT_EQ(profile::parse_profile(profile::to_yaml(p), "round trip").dram_bandwidth,
            p.dram_bandwidth);
}

// An MPI collectives result file: each benchmark's median, min and max aggregates, as the MPI
// suite writes them, for (operation, ranks, bytes, median, min, max); bytes < 0: the barrier.
struct CollectiveRow {
  std::string operation;
  unsigned ranks;
  long long bytes;
  double median, min, max;
};

std::filesystem::path collectives_run(const std::string& name,
                                      const std::vector<CollectiveRow>& rows) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const CollectiveRow& row : rows) {
    std::string run_name = fmt::format("mpi.collective.{}/ranks:{}", row.operation, row.ranks);
    nlohmann::json params = {{"suite", "mpi"},
                             {"part", "collectives"},
                             {"kernel", "collective"},
                             {"operation", row.operation},
                             {"communicator_ranks", row.ranks}};
    if (row.bytes >= 0) {
      run_name += fmt::format("/bytes:{}", row.bytes);
      params["message_bytes"] = row.bytes;
    }
    run_name += "/repeats:5/manual_time";
    for (const auto& [aggregate, value] :
         {std::pair{"median", row.median}, {"min", row.min}, {"max", row.max}}) {
      benchmarks.push_back({{"name", run_name + "_" + aggregate},
                            {"run_name", run_name},
                            {"run_type", "aggregate"},
                            {"aggregate_name", aggregate},
                            {"iterations", 5},
                            {"real_time", value * 1e9},
                            {"cpu_time", value * 1e9},
                            {"time_unit", "ns"},
                            {"seconds_per_operation", value},
                            {"params", params}});
    }
  }
  const nlohmann::json document = {{"context", {{"sonde", {{"suite", "mpi"}, {"host", "h"}}}}},
                                   {"benchmarks", benchmarks}};
  const auto folder = std::filesystem::temp_directory_path() / name;
  std::filesystem::create_directories(folder);
  write_file_atomically(folder / "mpi-collectives.json", document.dump(1));
  return folder;
}

// Each part measures the clock at its start and end; a guest's clock wanders between parts, so
// the profile gives the readings' median and range, whichever part comes first.
TEST(ProfileBuilder, TheClockIsTheReadingsMedianWithTheirRange) {
  const auto folder = std::filesystem::temp_directory_path() / "sonde-fit-clock";
  std::filesystem::create_directories(folder);
  for (const auto& [part, hertz] : std::vector<std::pair<std::string, double>>{
           {"overhead-sync", 3.6e9}, {"compute-kernels", 3.0e9}, {"overhead-pipe", 3.3e9}}) {
    const nlohmann::json document = {
        {"context",
         {{"sonde",
           {{"suite", "overhead"},
            {"host", "h"},
            {"clock", {{"hertz", hertz}, {"source", "add chain"}}},
            {"clock_end", {{"hertz", hertz + 0.2e9}, {"source", "add chain"}}},
            {"topology",
             {{"cores", 2}, {"numa_nodes", nlohmann::json::array({0})}, {"caches", {}}}}}}}},
        {"benchmarks", nlohmann::json::array()}};
    write_file_atomically(folder / (part + ".json"), document.dump(1));
  }
  const profile::Profile p =
      build_profile(read_run_records(read_result_folder(folder)), "m", folder);
  ASSERT_TRUE(p.machine.clock);
  // Readings 3.0, 3.2, 3.3, 3.5, 3.6 and 3.8 GHz: the median between the middle two.
  EXPECT_DOUBLE_EQ(p.machine.clock->value, 3.4e9);
  ASSERT_TRUE(p.machine.clock->interval);
  EXPECT_DOUBLE_EQ(p.machine.clock->interval->low, 3.0e9);
  EXPECT_DOUBLE_EQ(p.machine.clock->interval->high, 3.8e9);
  EXPECT_NE(p.machine.clock->note.find("median of 6 readings"), std::string::npos)
      << p.machine.clock->note;
}

// The shared-ports kernel's ratios, made with p = 3 (C = 1, M = 1 / (chain over stream)): the
// profile's exponent recovers it, fitted, with the leave-one-out range and the widths as sources;
// with two widths there is nothing to fit and the profile says so.
TEST(ProfileBuilder, TheSharedPortsExponentIsFittedToTheKernelsRatios) {
  const auto run = [](const std::string& name, const std::vector<double>& m_over_c) {
    nlohmann::json benchmarks = nlohmann::json::array();
    for (std::size_t i = 0; i < m_over_c.size(); ++i) {
      const unsigned width = 16 * static_cast<unsigned>(i + 1);
      const double chain_over_stream = 1 / m_over_c[i];
      const double both_over_stream = model::overlap_p_norm(chain_over_stream, 1.0, 3.0);
      const std::string run_name =
          fmt::format("compute.shared_ports/width:{}/repeats:5/manual_time", width);
      benchmarks.push_back({{"name", run_name + "_median"},
                            {"run_name", run_name},
                            {"run_type", "aggregate"},
                            {"aggregate_name", "median"},
                            {"iterations", 5},
                            {"real_time", 4.0},
                            {"cpu_time", 4.0},
                            {"time_unit", "ns"},
                            {"seconds_per_operation", 4e-9},
                            {"chain_over_stream", chain_over_stream},
                            {"both_over_stream", both_over_stream},
                            {"params",
                             {{"suite", "compute"},
                              {"part", "shared_ports"},
                              {"kernel", "shared_ports"},
                              {"width_doubles", width}}}});
    }
    const nlohmann::json document = {
        {"context", {{"sonde", {{"suite", "compute"}, {"host", "h"}}}}},
        {"benchmarks", benchmarks}};
    const auto folder = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(folder);
    write_file_atomically(folder / "compute-shared_ports.json", document.dump(1));
    return folder;
  };
  const auto folder = run("sonde-fit-shared-ports", {0.5, 0.8, 1.0, 1.3, 2.0, 4.0});
  const profile::Profile p =
      build_profile(read_run_records(read_result_folder(folder)), "m", folder);
  ASSERT_TRUE(p.compute.shared_ports_exponent);
  const profile::Quantity& exponent = *p.compute.shared_ports_exponent;
  EXPECT_NEAR(exponent.value, 3.0, 1e-5);
  EXPECT_EQ(exponent.unit, "1");
  EXPECT_EQ(exponent.origin, profile::Origin::fitted);
  ASSERT_TRUE(exponent.interval);
  EXPECT_NEAR(exponent.interval->low, 3.0, 1e-5);
  EXPECT_NEAR(exponent.interval->high, 3.0, 1e-5);
  ASSERT_TRUE(exponent.quality);
  EXPECT_EQ(exponent.quality->points, 6u);
  EXPECT_EQ(exponent.sources.size(), 6u);
  EXPECT_NE(exponent.note.find("6 widths, M 0.5 to 4 times C"), std::string::npos) << exponent.note;
  std::filesystem::remove_all(folder);

  const auto two = run("sonde-fit-shared-ports-two", {0.5, 2.0});
  const profile::Profile q = build_profile(read_run_records(read_result_folder(two)), "m", two);
  EXPECT_FALSE(q.compute.shared_ports_exponent);
  bool noted = false;
  for (const std::string& line : q.not_fitted) {
    noted = noted || (line.find("compute.shared_ports_exponent:") == 0 &&
                      line.find("2 points to fit an overlap exponent to") != std::string::npos);
  }
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(q.not_fitted, "\n"));
  std::filesystem::remove_all(two);
}

// The MPI suite on a two-core machine measures every collective at n = 2 only: no form in n, but
// the profile keeps the measured points, each with its repetitions' range and its benchmark.
TEST(ProfileBuilder, CollectivesMeasuredAtOneSizeKeepTheirPoints) {
  const auto folder =
      collectives_run("sonde-fit-collectives-n2", {{"barrier", 2, -1, 4.8e-7, 4.7e-7, 5.0e-7},
                                                   {"bcast", 2, 8, 1.5e-7, 1.4e-7, 1.7e-7},
                                                   {"bcast", 2, 1024, 3.0e-7, 3.0e-7, 3.0e-7},
                                                   {"bcast", 2, 65536, 6.0e-6, 5.5e-6, 7.0e-6}});
  const profile::Profile p =
      build_profile(read_run_records(read_result_folder(folder)), "m", folder);
  ASSERT_EQ(p.collectives.size(), 2u);
  const profile::Collective& broadcast = p.collectives.at("broadcast");
  EXPECT_FALSE(broadcast.has_forms());
  EXPECT_FALSE(broadcast.seconds_per_byte);
  EXPECT_TRUE(broadcast.ranks.empty()) << "no form was fitted on any communicator size";
  ASSERT_EQ(broadcast.measurements.size(), 3u);
  const profile::CollectiveMeasurement& first = broadcast.measurements[0];
  EXPECT_EQ(first.ranks, 2u);
  EXPECT_EQ(first.bytes, 8);
  EXPECT_EQ(first.time.value, 1.5e-7);
  EXPECT_EQ(first.time.unit, "s");
  EXPECT_EQ(first.time.origin, profile::Origin::measured);
  EXPECT_EQ(first.time.interval, (profile::Interval{1.4e-7, 1.7e-7, 1.0}));
  EXPECT_EQ(first.time.sources, std::vector<std::string>{"mpi.collective.bcast/ranks:2/bytes:8"});
  // Repetitions that all took the same time have no range to give.
  EXPECT_FALSE(broadcast.measurements[1].time.interval);
  const profile::Collective& barrier = p.collectives.at("barrier");
  ASSERT_EQ(barrier.measurements.size(), 1u);
  EXPECT_EQ(barrier.measurements[0].bytes, 0);
  // Estimates at n = 2 come from the points; another n is an error saying why.
  EXPECT_DOUBLE_EQ(barrier.seconds(2, 0), 4.8e-7);
  EXPECT_NEAR(broadcast.seconds(2, 516), 2.25e-7, 1e-18);
  EXPECT_THROW(broadcast.estimate(4, 8), Error);
  bool noted = false;
  for (const std::string& line : p.not_fitted) {
    noted = noted || (line.find("collectives: measured on communicators of 2 rank(s) only") == 0 &&
                      line.find("no form in n was fitted") != std::string::npos &&
                      line.find("measured points are kept") != std::string::npos);
  }
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(p.not_fitted, "\n"));
  // And it is a valid profile: written, it reads back the same.
  const auto file = folder / "profile.yaml";
  profile::write_profile(p, file);
  EXPECT_EQ(profile::read_profile(file), p);
  std::filesystem::remove_all(folder);
}

// Four communicator sizes: the forms in n are fitted (Xu and Hwang (1995), Eq. 6) and the measured
// points are kept beside them.
TEST(ProfileBuilder, CollectivesWithFormsKeepTheirPointsToo) {
  std::vector<CollectiveRow> rows;
  for (unsigned n : {2u, 4u, 8u, 16u}) {
    const double log_n = std::log2(n);
    rows.push_back({"barrier", n, -1, (2 * log_n + 1) * 1e-6, (2 * log_n + 0.9) * 1e-6,
                    (2 * log_n + 1.2) * 1e-6});
    for (long long bytes : {8LL, 1024LL, 65536LL, 1048576LL}) {
      const double t = (5 * log_n + 2) * 1e-6 + bytes * 1e-9 * log_n;
      rows.push_back({"bcast", n, bytes, t, t * 0.95, t * 1.1});
    }
  }
  const auto folder = collectives_run("sonde-fit-collectives-n16", rows);
  const profile::Profile p =
      build_profile(read_run_records(read_result_folder(folder)), "m", folder);
  const profile::Collective& broadcast = p.collectives.at("broadcast");
  EXPECT_TRUE(broadcast.has_forms()) << fmt::format("{}", fmt::join(p.not_fitted, "\n"));
  EXPECT_TRUE(broadcast.seconds_per_byte);
  EXPECT_EQ(broadcast.ranks, (std::vector<std::uint64_t>{2, 4, 8, 16}));
  EXPECT_EQ(broadcast.measurements.size(), 16u);
  EXPECT_EQ(p.collectives.at("barrier").measurements.size(), 4u);
  // Beyond n = 16 the point measured there times the form's growth: the generating law at 32.
  const profile::CollectiveEstimate e = broadcast.estimate(32, 1024);
  EXPECT_NE(e.how.find("extrapolated from the measured n = 16"), std::string::npos) << e.how;
  EXPECT_NEAR(e.seconds, 27e-6 + 1024e-9 * 5, 0.05 * e.seconds);
  EXPECT_EQ(broadcast.estimate(12, 1024).how, "form in n");
  // The same points as one model in n and m at once (Calotoiu et al. (2016)): the generating law,
  // 2 + 5 log n + 0.001 m log n in us; the barrier has no message size to model.
  ASSERT_TRUE(broadcast.ranks_and_bytes) << fmt::format("{}", fmt::join(p.not_fitted, "\n"));
  const profile::TwoParameterFormula& both = *broadcast.ranks_and_bytes;
  EXPECT_EQ(both.text(1e6), "2 + 5 log n + 0.001 m log n");
  EXPECT_NEAR(both(64, 4096), 32e-6 + 4096e-9 * 6, 1e-9);
  ASSERT_EQ(both.terms.size(), 3u);
  ASSERT_TRUE(both.terms[2].interval);
  EXPECT_LE(both.terms[2].interval->low, 1e-9);
  EXPECT_GE(both.terms[2].interval->high, 1e-9);
  EXPECT_FALSE(p.collectives.at("barrier").ranks_and_bytes);
  const auto file = folder / "profile.yaml";
  profile::write_profile(p, file);
  EXPECT_EQ(profile::read_profile(file), p);
  std::filesystem::remove_all(folder);
}

TEST(FitWeights, NeverReturnsANegativeWeight) {
  // The second count costs nothing; with noise its weight would come out negative half the time.
  // Five draws of the noise: whichever sign the unconstrained fit gives b, no weight is negative.
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> noise(0, 0.05);
    std::vector<std::map<std::string, double>> rows;
    std::vector<double> seconds;
    for (int i = 0; i < 40; ++i) {
      const double a = 1 + i % 7, b = (i * 13) % 5;
      rows.push_back({{"a", a}, {"b", b}});
      seconds.push_back(2e-9 * a * (1 + noise(random)));
    }
    std::vector<std::string> dropped;
    profile::FitQuality quality;
    const auto w = fit_weights(rows, seconds, {"a", "b"}, "test", dropped, quality);
    for (const auto& [term, value] : w) EXPECT_GE(value, 0) << term;
    EXPECT_NEAR(w.at("a"), 2e-9, 0.1e-9);
  }
}

// Worked by hand: 1 ns up to 48 KiB, 4 ns from 56 KiB. The threshold is sqrt(1 * 4) = 2 ns,
// halfway between the two in log latency, so halfway between 48 and 56 KiB in log size:
// sqrt(48 * 56) KiB = 51.85 KiB.
TEST(MemoryCapacity, FoundWhereTheLatencyCrossesBetweenPlateaus) {
  const std::vector<double> bytes = {32768, 40960, 49152, 57344, 65536, 131072};
  const std::vector<double> seconds = {1e-9, 1e-9, 1e-9, 4e-9, 4e-9, 4e-9};
  const auto step = detect_capacity(bytes, seconds, 1e-9, 4e-9);
  ASSERT_TRUE(step);
  EXPECT_NEAR(step->bytes, std::sqrt(49152.0 * 57344.0), 1e-6);
  EXPECT_EQ(step->low, 49152);
  EXPECT_EQ(step->high, 57344);
  EXPECT_FALSE(detect_capacity(bytes, std::vector<double>(6, 1e-9), 1e-9, 4e-9));
}

// Xu and Hwang (1995), section 3.2 (3): process creation t = c n + d or c log n + d.
TEST(OverheadForms, TellsLinearFromLogarithmicAndRecoversThem) {
  const std::vector<Form> forms = {form_named("n + 1"), form_named("log n + 1")};
  std::mt19937_64 random(17);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<double> n, linear, logarithmic;
  for (double threads = 1; threads <= 128; threads *= 2) {
    for (int r = 0; r < 5; ++r) {
      n.push_back(threads);
      linear.push_back((2e-6 * threads + 10e-6) * (1 + noise(random)));
      logarithmic.push_back((5e-6 * std::log2(threads) + 20e-6) * (1 + noise(random)));
    }
  }
  const FormChoice lin = select_form(n, linear, "linear", 0.0, forms);
  EXPECT_EQ(lin.form.name, "n + 1");
  EXPECT_NEAR(lin.fit.coefficients[0], 2e-6, 0.2e-6);
  EXPECT_NEAR(lin.fit.coefficients[1], 10e-6, 1e-6);
  const FormChoice log = select_form(n, logarithmic, "logarithmic", 0.0, forms);
  EXPECT_EQ(log.form.name, "log n + 1");
  EXPECT_NEAR(log.fit.coefficients[0], 5e-6, 0.5e-6);
  EXPECT_NEAR(log.fit.coefficients[1], 20e-6, 2e-6);
}

}  // namespace
}  // namespace sonde::fit
