// `sonde check` with a fake program run: known times give a known median, E and interval verdict;
// placeholders are filled in; bad options are refused before anything runs; and a program that
// fails half way leaves the points measured before it in the record files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "check/check.hpp"
#include "check/probe.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "profile/profile.hpp"

namespace sonde::check {
namespace {

namespace fs = std::filesystem;

// Runs `body`, which must throw an Error of `code` whose message holds every one of `parts`.
template <typename Body>
void expect_error(Body body, ExitCode code, const std::vector<std::string>& parts) {
  try {
    body();
    ADD_FAILURE() << "no error; expected one with '" << parts.front() << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << part << "' not in: " << e.what();
    }
  }
}

// A fresh folder for one test's files.
fs::path scratch(const std::string& name) {
  const fs::path folder = fs::path(::testing::TempDir()) / ("sonde-check-" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

// Prints `seconds` once per value, after a line that is no record.
RunOutput printing(const std::vector<double>& seconds) {
  RunOutput run;
  run.output = "starting\n";
  for (double s : seconds) run.output += "{\"seconds\": " + std::to_string(s) + "}\n";
  return run;
}

// The tiny workload (check/tests/tiny.csv): on ibm-sp2, P = (N / 1000) / min(n, 4) seconds.
CheckOptions tiny(const fs::path& folder) {
  CheckOptions o;
  o.spreadsheet = "check/tests/tiny.csv";
  o.machine = "machines/ibm-sp2.yaml";
  o.ranks = "1,2";
  o.repetitions = 3;
  o.launcher = "";
  o.csv = (folder / "check.csv").string();
  o.json = (folder / "check.json").string();
  o.command = {"echo", "--N", "{N}", "--K={K}", "--ranks", "{n}", "--repetitions", "{repetitions}"};
  return o;
}

TEST(CheckOptions, RankCounts) {
  EXPECT_EQ(parse_ranks("1,2,4"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_ranks(" 8 , 16"), (std::vector<int>{8, 16}));
  expect_error([] { parse_ranks("1,0"); }, ExitCode::usage, {"--ranks", "'0'", "at least 1"});
  expect_error([] { parse_ranks("-2"); }, ExitCode::usage, {"'-2'", "at least 1"});
  expect_error([] { parse_ranks("1,two"); }, ExitCode::usage, {"'two'", "whole numbers"});
  expect_error([] { parse_ranks("1.5"); }, ExitCode::usage, {"'1.5'", "whole numbers"});
  expect_error([] { parse_ranks(""); }, ExitCode::usage, {"--ranks", "1,2,4"});
}

TEST(CheckOptions, Settings) {
  using Setting = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(parse_setting("N=4096"), (Setting{{"N", 4096}}));
  EXPECT_EQ(parse_setting("N=8192, K=1e1"), (Setting{{"N", 8192}, {"K", 10}}));
  expect_error([] { parse_setting("N4096"); }, ExitCode::usage,
               {"--set", "'N4096'", "no '='", "NAME=VALUE"});
  expect_error([] { parse_setting("N=1,=5"); }, ExitCode::usage, {"'=5'", "no name"});
  expect_error([] { parse_setting("N=lots"); }, ExitCode::usage, {"'lots' is no number"});
  expect_error([] { parse_setting("N=1,N=2"); }, ExitCode::usage, {"'N' is given twice"});
  expect_error([] { parse_setting(""); }, ExitCode::usage, {"--set", "empty"});
}

TEST(CheckOptions, Placeholders) {
  const std::map<std::string, std::string> values = {
      {"N", "4096"}, {"K", "10"}, {"n", "2"}, {"repetitions", "5"}};
  EXPECT_EQ(substitute({"prog", "--N", "{N}", "--size={N}x{K}", "-np{n}", "{repetitions}"}, values),
            (std::vector<std::string>{"prog", "--N", "4096", "--size=4096x10", "-np2", "5"}));
  // Braces that are no placeholder are left alone.
  EXPECT_EQ(substitute({"{\"a\": 1}", "{}", "a{b", "{N"}, values),
            (std::vector<std::string>{"{\"a\": 1}", "{}", "a{b", "{N"}));
  expect_error(
      [&] {
        substitute({"prog", "--x={X}"}, values);
      },
      ExitCode::usage, {"{X}", "'--x={X}'", "no value", "{N}", "{repetitions}"});
  EXPECT_EQ(format_value(4096), "4096");
  EXPECT_EQ(format_value(0.25), "0.25");
  EXPECT_EQ(format_value(-3), "-3");
}

TEST(CheckOptions, Launcher) {
  EXPECT_EQ(launcher_words(std::string("")), std::vector<std::string>{});
  EXPECT_EQ(launcher_words(std::string("srun  --mpi=pmix")),
            (std::vector<std::string>{"srun", "--mpi=pmix"}));
  expect_error([] { launcher_words(std::string("--ranks")); }, ExitCode::usage,
               {"--launcher", "'--ranks' is no launcher"});
  ::setenv("SONDE_MPIEXEC", "mpiexec.mpich", 1);
  EXPECT_EQ(launcher_words(std::nullopt), std::vector<std::string>{"mpiexec.mpich"});
  ::unsetenv("SONDE_MPIEXEC");
  EXPECT_EQ(launcher_words(std::nullopt), std::vector<std::string>{"mpiexec"});
}

TEST(CheckMeasure, SecondsFromOutput) {
  const std::string output =
      "warming up\n{\"ranks\": 2, \"seconds\": 0.5, \"ok\": true}\n"
      "{\"phase_seconds\": 9}\n{\"seconds\":1e-3}\r\nseconds: 7\n";
  EXPECT_EQ(seconds_in(output, "prog"), (std::vector<double>{0.5, 1e-3}));
  EXPECT_TRUE(has_seconds("{\"seconds\" : 2}"));
  EXPECT_FALSE(has_seconds("{\"phase_seconds\": 2}"));
  EXPECT_TRUE(seconds_in("no records\n", "prog").empty());
  expect_error([] { seconds_in("{\"seconds\": null}\n", "prog"); }, ExitCode::failure,
               {"prog", "no time"});
  expect_error([] { seconds_in("{\"seconds\": -1}\n", "prog"); }, ExitCode::failure, {"no time"});
}

TEST(CheckMeasure, MedianAndSpread) {
  const Measured odd = summarize({0.3, 0.1, 0.2});
  EXPECT_EQ(odd.median, 0.2);
  EXPECT_EQ(odd.min, 0.1);
  EXPECT_EQ(odd.max, 0.3);
  EXPECT_EQ(odd.count, 3u);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 2, 3}).median, 2.5);
}

TEST(CheckMeasure, ErrorRatioAndInterval) {
  Record r;
  r.predicted = 1.0;
  r.measured = summarize({0.5});
  compare(r);
  EXPECT_DOUBLE_EQ(r.error_ratio, 2.0);
  EXPECT_FALSE(r.in_interval.has_value());  // no interval
  r.interval = predict::Range{0.4, 0.6};
  compare(r);
  EXPECT_EQ(r.in_interval, std::optional<bool>(true));
  r.interval = predict::Range{0.6, 1.2};
  compare(r);
  EXPECT_EQ(r.in_interval, std::optional<bool>(false));
  r.measured = summarize({2.0});
  compare(r);
  EXPECT_DOUBLE_EQ(r.error_ratio, 2.0);  // symmetric: max(T, P) / min(T, P)
  r.measured = summarize({0.0});
  compare(r);
  EXPECT_TRUE(std::isinf(r.error_ratio));
}

TEST(CheckCommand, PredictsRunsAndCompares) {
  const fs::path folder = scratch("compare");
  CheckOptions o = tiny(folder);
  o.sets = {"N=2000", "N=4000,K=7"};
  std::vector<std::vector<std::string>> runs;
  // T = 0.5 s at every point, the median of 0.4, 0.5 and 0.9.
  const Runner fake = [&](const std::vector<std::string>& argv) {
    runs.push_back(argv);
    return printing({0.9, 0.4, 0.5});
  };
  std::ostringstream out, log;
  EXPECT_EQ(check_command(o, out, log, fake), 0);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0], (std::vector<std::string>{"echo", "--N", "2000", "--K=10", "--ranks", "1",
                                               "--repetitions", "3"}));
  EXPECT_EQ(runs[3], (std::vector<std::string>{"echo", "--N", "4000", "--K=7", "--ranks", "2",
                                               "--repetitions", "3"}));

  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  EXPECT_TRUE(j["complete"].get<bool>());
  ASSERT_EQ(j["records"].size(), 4u);
  // P = (N / 1000) / n: 2, 1, 4, 2 seconds; T = 0.5: E = 4, 2, 8, 4.
  const std::vector<double> predicted = {2, 1, 4, 2}, e = {4, 2, 8, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& r = j["records"][i];
    EXPECT_NEAR(r["predicted_seconds"].get<double>(), predicted[i], 1e-9) << i;
    EXPECT_NEAR(r["error_ratio"].get<double>(), e[i], 1e-9) << i;
    EXPECT_DOUBLE_EQ(r["measured_median_seconds"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(r["measured_min_seconds"].get<double>(), 0.4);
    EXPECT_DOUBLE_EQ(r["measured_max_seconds"].get<double>(), 0.9);
    EXPECT_EQ(r["repetitions"].get<int>(), 3);
    EXPECT_EQ(r["machine_name"].get<std::string>(), "ibm-sp2");
    EXPECT_EQ(r["spreadsheet"].get<std::string>(), "check/tests/tiny.csv");
    EXPECT_FALSE(r["host"].get<std::string>().empty());
    // The interval's verdict, where the prediction has one: T = 0.5 against [low, high].
    if (r["predicted_low_seconds"].is_null()) {
      EXPECT_TRUE(r["in_interval"].is_null());
    } else {
      EXPECT_EQ(r["in_interval"].get<bool>(), r["predicted_low_seconds"].get<double>() <= 0.5 &&
                                                  0.5 <= r["predicted_high_seconds"].get<double>());
    }
    EXPECT_EQ(r["date"].get<std::string>().size(), 20u);  // 2024-01-02T03:04:05Z
  }
  // The load over each point's runs, read from /proc/stat: a share and a count of CPUs.
  for (const auto& r : j["records"]) {
    ASSERT_TRUE(r.contains("load")) << r.dump();
    const double steal = r["load"]["steal_fraction"].get<double>();
    EXPECT_GE(steal, 0);
    EXPECT_LE(steal, 1);
    EXPECT_GE(r["load"]["other_busy_cpus"].get<double>(), 0);
  }
  EXPECT_EQ(j["records"][2]["setting"].get<std::string>(), "N=4000,K=7");
  EXPECT_EQ(j["records"][2]["parameters"]["K"].get<double>(), 7);
  EXPECT_EQ(j["records"][2]["n"].get<int>(), 1);
  EXPECT_EQ(j["summary"]["points"].get<int>(), 4);
  EXPECT_NEAR(j["summary"]["mean_error_ratio"].get<double>(), 4.5, 1e-9);
  EXPECT_NEAR(j["summary"]["max_error_ratio"].get<double>(), 8, 1e-9);

  const std::string csv = read_file(o.csv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_NE(csv.find("n,compared,predicted_seconds"), std::string::npos);
  EXPECT_NE(
      csv.find("state_now_notes,steal_fraction,other_busy_cpus,dram_triad_bytes,profile_usual_"
               "triad_bytes_per_second,profile_usual_triad_at_once_bytes_per_second\n"),
      std::string::npos);
  EXPECT_NE(csv.find("echo --N 4000 --K=7 --ranks 2 --repetitions 3"), std::string::npos);

  const std::string table = out.str();
  EXPECT_NE(table.find("N=4000,K=7"), std::string::npos) << table;
  EXPECT_NE(table.find("8.00"), std::string::npos) << table;
  EXPECT_NE(table.find("500 ms (400 ms .. 900 ms, 3 runs)"), std::string::npos) << table;
  EXPECT_NE(table.find("mean 4.50, max 8.00"), std::string::npos) << table;
  EXPECT_NE(log.str().find("4 of 4"), std::string::npos) << log.str();
}

profile::Quantity quantity(double value, const char* unit) {
  profile::Quantity q;
  q.value = value;
  q.unit = unit;
  return q;
}

MachineSample sample(double triad, double add, unsigned core = 0) {
  MachineSample s;
  s.core = core;
  s.dram_triad_bytes_per_second = triad;
  s.add_latency_seconds = add;
  return s;
}

// The triad on `threads` cores at once (no add chain).
MachineSample at_once(double triad, unsigned threads) {
  MachineSample s = sample(triad, 0);
  s.threads = threads;
  return s;
}

// A profile with a DRAM triad of 30 GB/s [28 .. 32] and an add latency of 0.5 ns (no interval).
profile::Profile probed_profile() {
  profile::Profile p;
  profile::MemoryLevel l3;
  l3.name = "L3";
  l3.capacity_bytes = 512u << 20;  // as hwloc claims it
  l3.detected_capacity = quantity(32.0 * (1 << 20), "B");
  profile::MemoryLevel dram;
  dram.name = "DRAM";
  profile::Quantity triad = quantity(30e9, "B/s");
  triad.interval = profile::Interval{28e9, 32e9, 0.95};
  dram.bandwidth["triad/1"] = triad;
  dram.bandwidth["triad/2"] = quantity(40e9, "B/s");  // no interval
  p.memory = {l3, dram};
  p.compute.kernels["add.latency"] = quantity(0.5e-9, "s");
  return p;
}

TEST(CheckProbe, NotesWhereTheMachineNowIsOffTheProfilesValue) {
  const profile::Profile p = probed_profile();
  // Within [28, 32] GB/s and at 0.5 ns: nothing to say.
  EXPECT_TRUE(drift_notes(p, {sample(29e9, 0.5e-9), sample(31e9, 0.5e-9)}).empty());
  // 39 and 41 GB/s: 40 / 30 = 1.33 times as fast; 0.625 ns: 0.5 / 0.625 = 0.80 times as fast.
  const std::vector<std::string> notes =
      drift_notes(p, {sample(39e9, 0.625e-9), sample(41e9, 0.625e-9)});
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "machine now: DRAM triad (1 thread) 39.0 GB/s .. 41.0 GB/s, the profile's 30.0 GB/s "
            "[28.0 GB/s .. 32.0 GB/s]: 1.33 times as fast on average");
  EXPECT_EQ(notes[1],
            "machine now: add latency 0.625 ns, the profile's 0.5 ns: 0.80 times as fast on "
            "average");
  // One core of two 20% slow: the other is as profiled, the slow one is worth a note.
  EXPECT_EQ(drift_notes(p, {sample(30e9, 0.5e-9, 0), sample(24e9, 0.5e-9, 1)}).size(), 1u);
  // A probe that measured nothing is no drift.
  EXPECT_TRUE(drift_notes(p, {sample(0, 0)}).empty());
  // Outside the interval but within 5% of the value: the machine's wander, no note.
  EXPECT_TRUE(drift_notes(p, {sample(30e9, 0.51e-9), sample(30e9, 0.52e-9)}).empty());
  // Two cores at once against the profile's triad/2 (40 GB/s): 46 and 50 GB/s, 1.20 times as
  // fast on average; their add latency (0: not timed) is no drift, and the one-core samples
  // within the interval say nothing.
  const std::vector<std::string> node = drift_notes(
      p, {sample(30e9, 0.5e-9, 0), sample(30e9, 0.5e-9, 1), at_once(46e9, 2), at_once(50e9, 2)});
  ASSERT_EQ(node.size(), 1u);
  EXPECT_EQ(node[0],
            "machine now: DRAM triad (2 threads at once) 46.0 GB/s .. 50.0 GB/s, the profile's "
            "40.0 GB/s: 1.20 times as fast on average");
  EXPECT_TRUE(drift_notes(p, {sample(30e9, 0.5e-9), at_once(41e9, 2)}).empty());  // within 5%
  EXPECT_TRUE(drift_notes(p, {sample(30e9, 0.5e-9), at_once(80e9, 4)}).empty());  // no triad/4
  // Inside an interval widened to the drift of the characterization, 20% off its value is still
  // worth a note: the machine is in another of its states.
  profile::Profile wide = p;
  wide.memory.back().bandwidth.at("triad/1").interval = profile::Interval{20e9, 45e9, 1};
  const std::vector<std::string> inside = drift_notes(wide, {sample(36e9, 0.5e-9)});
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0],
            "machine now: DRAM triad (1 thread) 36.0 GB/s, the profile's 30.0 GB/s [20.0 GB/s .. "
            "45.0 GB/s]: 1.20 times as fast on average");
  // No sample, or a profile without the two: no note.
  EXPECT_TRUE(drift_notes(p, {}).empty());
  EXPECT_TRUE(drift_notes(profile::Profile{}, {sample(39e9, 0.625e-9)}).empty());
}

TEST(CheckProbe, TheChaseIsSetAgainstTheProfilesChaseAtItsSize) {
  profile::Profile p = probed_profile();
  profile::Quantity at_64 = quantity(180e-9, "s");
  at_64.interval = profile::Interval{175e-9, 185e-9, 1};
  p.random_chase = {{1, 32u << 20, quantity(160e-9, "s")},
                    {1, 64u << 20, at_64},
                    {2, 128u << 20, quantity(250e-9, "s")}};
  // The largest one-thread chain (the two-thread one is no size for one core), within an eighth
  // of the memory.
  EXPECT_EQ(probe_chase_bytes(p, 64ull << 30), 64u << 20);
  EXPECT_EQ(probe_chase_bytes(p, 256u << 20), 32u << 20);
  // An eighth of 400 MiB (50 MiB) falls between the points: the largest measured below it.
  EXPECT_EQ(probe_chase_bytes(p, 400u << 20), 32u << 20);
  EXPECT_EQ(probe_chase_bytes(p, 128u << 20), 0u);  // none measured within 16 MiB
  EXPECT_EQ(probe_chase_bytes(p, 0), 64u << 20);    // memory unknown
  EXPECT_EQ(probe_line_bytes(p), 64u);              // no line stated: 64 B
  p.memory.front().line_bytes = 128;
  EXPECT_EQ(probe_line_bytes(p), 128u);
  EXPECT_EQ(probe_chase_bytes(probed_profile(), 64ull << 30), 0u);  // no curve: no chase
  ASSERT_NE(profile_dram_chase(p, 64u << 20), nullptr);
  EXPECT_EQ(profile_dram_chase(p, 48u << 20), nullptr);
  const auto chased = [](double seconds, unsigned core) {
    MachineSample s = sample(30e9, 0.5e-9, core);
    s.dram_chase_seconds = seconds;
    s.chase_bytes = 64u << 20;
    return s;
  };
  // 216 and 234 ns against 180 [175 .. 185]: 180 / 225 = 0.80 times as fast on average.
  const std::vector<std::string> notes = drift_notes(p, {chased(216e-9, 0), chased(234e-9, 1)});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "machine now: random chase over 64 MiB 216 ns .. 234 ns, the profile's 180 ns [175 ns "
            ".. 185 ns]: 0.80 times as fast on average");
  EXPECT_TRUE(drift_notes(p, {chased(182e-9, 0), chased(178e-9, 1)}).empty());
}

// Half the first cache, the smaller of what the system claims and what the latency curve saw:
// a guest's 32 KiB L1d whose step the curve found at 27.4 KiB reads 13.7 KiB (whole doubles).
TEST(CheckProbe, TheInCoreReadTakesHalfTheFirstCache) {
  profile::Profile p = probed_profile();
  profile::MemoryLevel l1;
  l1.name = "L1d";
  l1.capacity_bytes = 32768;
  l1.detected_capacity = quantity(27.4 * 1024, "B");
  l1.bandwidth["read/1"] = quantity(170e9, "B/s");
  p.memory.insert(p.memory.begin(), l1);
  EXPECT_EQ(probe_l1_bytes(p), 14024u);  // 13.7 KiB = 14028.8 B, down to whole doubles
  p.memory.front().detected_capacity.reset();
  EXPECT_EQ(probe_l1_bytes(p), 16384u);
  ASSERT_NE(profile_l1_read(p), nullptr);
  EXPECT_DOUBLE_EQ(profile_l1_read(p)->value, 170e9);
  // 120 and 130 GB/s against 170: 0.74 times as fast.
  MachineSample slow = sample(30e9, 0.5e-9, 0), slower = sample(30e9, 0.5e-9, 1);
  slow.l1_read_bytes_per_second = 130e9;
  slower.l1_read_bytes_per_second = 120e9;
  slow.l1_bytes = slower.l1_bytes = 16384;
  const std::vector<std::string> notes = drift_notes(p, {slow, slower});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "machine now: L1d read (1 thread) 120.0 GB/s .. 130.0 GB/s, the profile's 170.0 GB/s: "
            "0.74 times as fast on average");
  // A profile of the memory alone has no cache to read.
  profile::Profile memory_only;
  memory_only.memory = {p.memory.back()};
  EXPECT_EQ(probe_l1_bytes(memory_only), 0u);
  EXPECT_EQ(profile_l1_read(memory_only), nullptr);
  // characterize sizes it from hwloc's claim alone, by the same rule: 48 KiB reads 24 KiB; a first
  // cache under 2 KiB is not read.
  EXPECT_EQ(microbench::l1_probe_bytes(48 * 1024), 24576u);
  EXPECT_EQ(microbench::l1_probe_bytes(2000), 0u);
}

TEST(CheckProbe, TheTriadIsEightTimesTheLargestCacheSeenWithinBounds) {
  profile::Profile p = probed_profile();
  // 8 x the 32 MiB the latency curve detected (not the 512 MiB claimed).
  constexpr std::uint64_t big = 64ull << 30;
  EXPECT_EQ(probe_bytes(p, big), 256u << 20);
  p.memory[0].detected_capacity.reset();  // then the claim: 4 GiB, capped at 2 GiB
  EXPECT_EQ(probe_bytes(p, big), 2048u << 20);
  EXPECT_EQ(probe_bytes(profile::Profile{}, big), 192u << 20);  // no cache known: STREAM's floor
  EXPECT_EQ(probe_bytes(p, 4ull << 30), 512u << 20);            // an eighth of a 4 GiB machine
}

TEST(CheckProbe, TheRealProbeGivesARateAndALatency) {
  // Tiny, so that it is quick: what it measures is not checked, only that it measures.
  const std::vector<MachineSample> samples = probe_machine({1u << 20, 1u << 20});
  ASSERT_FALSE(samples.empty());
  const MachineSample& s = samples.front();
  EXPECT_EQ(s.threads, 1u);
  EXPECT_TRUE(std::isfinite(s.dram_triad_bytes_per_second));
  EXPECT_GT(s.dram_triad_bytes_per_second, 0);
  EXPECT_TRUE(std::isfinite(s.add_latency_seconds));
  EXPECT_GT(s.add_latency_seconds, 0);
  EXPECT_EQ(s.chase_bytes, 1u << 20);
  EXPECT_EQ(s.triad_bytes, 24u * ((1u << 20) / 24));  // whole elements of 24 B
  EXPECT_TRUE(std::isfinite(s.dram_chase_seconds));
  EXPECT_GT(s.dram_chase_seconds, 0);
  // With two cores or more, the last sample is all of them at once.
  if (samples.size() > 1) {
    const MachineSample& all = samples.back();
    EXPECT_EQ(all.threads, samples.size() - 1);
    EXPECT_GT(all.dram_triad_bytes_per_second, 0);
    EXPECT_EQ(all.add_latency_seconds, 0);
  }
  // The in-core read, over 16 KiB.
  ProbeSizes in_core{1u << 20, 0};
  in_core.cores_alone = 1;
  in_core.l1_bytes = 16384;
  const MachineSample read = probe_machine(in_core).front();
  EXPECT_EQ(read.l1_bytes, 16384u);
  EXPECT_TRUE(std::isfinite(read.l1_read_bytes_per_second));
  EXPECT_GT(read.l1_read_bytes_per_second, 0);
  EXPECT_EQ(samples.front().l1_bytes, 0u);  // not asked for: not timed
  // One core alone, as `sonde characterize` asks for two: the cores at once are as many as
  // before all the same.
  ProbeSizes one_alone{1u << 20, 0};
  one_alone.cores_alone = 1;
  const std::vector<MachineSample> fewer = probe_machine(one_alone);
  ASSERT_EQ(fewer.size(), samples.size() > 1 ? 2u : 1u);
  EXPECT_EQ(fewer.front().threads, 1u);
  EXPECT_EQ(fewer.front().core, 0u);
  EXPECT_EQ(fewer.front().chase_bytes, 0u);  // no chase asked for
  EXPECT_EQ(fewer.back().threads, samples.back().threads);
  // The cores at once on their own, here on the first core twice.
  const MachineSample twice = probe_cores_at_once({0, 0}, 1u << 20);
  EXPECT_EQ(twice.threads, 2u);
  EXPECT_EQ(twice.triad_bytes, 2 * 24u * ((1u << 20) / 24 / 2));
  EXPECT_TRUE(std::isfinite(twice.dram_triad_bytes_per_second));
  EXPECT_GT(twice.dram_triad_bytes_per_second, 0);
}

TEST(CheckCommand, TheMachineIsProbedBeforeAndAfterEachPoint) {
  const fs::path folder = scratch("probe");
  CheckOptions o = tiny(folder);
  o.machine = "machines/epyc-vm.yaml";  // has a DRAM triad/1 and an add latency
  std::vector<std::string> order;
  const Runner fake = [&](const std::vector<std::string>&) {
    order.push_back("run");
    return printing({0.5});
  };
  // Far faster than any profile: every point gets a note on each.
  const Probe probe = [&](const ProbeSizes& sizes) {
    order.push_back("probe " + std::to_string(sizes.triad_bytes));
    return std::vector<MachineSample>{sample(1e15, 1e-15, 0), sample(1e15, 1e-15, 1),
                                      at_once(3e15, 2)};
  };
  std::ostringstream out, log;
  EXPECT_EQ(check_command(o, out, log, fake, probe), 0);
  ASSERT_EQ(order.size(), 6u);
  EXPECT_EQ(order[1], "run");
  EXPECT_EQ(order[0].rfind("probe ", 0), 0u);
  EXPECT_EQ(order[2], order[0]);
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  const auto& r = j["records"][0];
  // Two cores and both at once before the runs, the same after.
  const auto& samples = r["machine_now"]["samples"];
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_EQ(samples[1]["core"].get<int>(), 1);
  EXPECT_EQ(samples[1]["when"].get<std::string>(), "before");
  EXPECT_EQ(samples[2]["threads"].get<int>(), 2);
  EXPECT_TRUE(samples[2]["add_latency_seconds"].is_null());  // not timed, so not 0
  EXPECT_EQ(samples[3]["when"].get<std::string>(), "after");
  EXPECT_EQ(samples[3]["threads"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(samples[4]["dram_triad_bytes_per_second"].get<double>(), 1e15);
  EXPECT_GT(r["machine_now"]["profile_dram_triad_bytes_per_second"].get<double>(), 1e9);
  EXPECT_GT(r["machine_now"]["profile_add_latency_seconds"].get<double>(), 1e-11);
  // epyc-vm.yaml has a DRAM triad/2: the cores at once are set against it.
  EXPECT_GT(r["machine_now"]["profile_dram_triad_at_once_bytes_per_second"].get<double>(), 1e9);
  std::size_t drift = 0;
  for (const auto& note : r["notes"])
    drift += note.get<std::string>().rfind("machine now:", 0) == 0;
  EXPECT_EQ(drift, 3u);
  const std::string csv = read_file(o.csv);
  EXPECT_NE(csv.find("dram_triad_now_low_bytes_per_second"), std::string::npos);
  EXPECT_NE(csv.find("dram_triad_at_once_now_high_bytes_per_second"), std::string::npos);
  // One core alone at most 1e15, the two at once 3e15: each in its own columns.
  EXPECT_NE(csv.find(",1000000000000000,1000000000000000,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",2,3000000000000000,3000000000000000,"), std::string::npos) << csv;
  EXPECT_NE(log.str().find("machine before: DRAM triad (1 thread) core 0 1000000.0 GB/s, core 1 "
                           "1000000.0 GB/s; 2 cores at once 3000000.0 GB/s; add latency core 0 "
                           "1e-06 ns"),
            std::string::npos)
      << log.str();

  // A profile with a random chase: the probe is asked to chase its largest one-thread chain
  // (64 MiB, of 64 B lines), and the chase goes into the records beside the profile's.
  CheckOptions chased = tiny(scratch("probe-chase"));
  chased.machine = "examples/corpus/records/epyc-vm-1124b/epyc-vm-1124b.yaml";
  chased.references = {"machines/ibm-sp2.yaml"};  // where the tiny sheet's times were measured
  ProbeSizes asked;
  const Probe chasing = [&](const ProbeSizes& sizes) {
    asked = sizes;
    MachineSample one = sample(30e9, 0.6e-9, 0);
    one.dram_chase_seconds = 400e-9;
    one.chase_bytes = sizes.chase_bytes;
    one.l1_read_bytes_per_second = 150e9;
    one.l1_bytes = sizes.l1_bytes;
    return std::vector<MachineSample>{one};
  };
  std::ostringstream chase_log;
  EXPECT_EQ(check_command(chased, out, chase_log, fake, chasing), 0);
  EXPECT_EQ(asked.chase_bytes, 64u << 20);
  EXPECT_EQ(asked.line_bytes, 64u);
  const nlohmann::json c = nlohmann::json::parse(read_file(chased.json));
  const auto& chased_record = c["records"][0];
  EXPECT_DOUBLE_EQ(chased_record["machine_now"]["samples"][0]["dram_chase_seconds"].get<double>(),
                   400e-9);
  EXPECT_GT(chased_record["machine_now"]["profile_dram_chase_seconds"].get<double>(), 1e-7);
  bool noted = false;
  for (const auto& note : chased_record["notes"])
    noted = noted || note.get<std::string>().rfind("machine now: random chase over 64 MiB", 0) == 0;
  EXPECT_TRUE(noted) << chased_record["notes"];
  EXPECT_NE(read_file(chased.csv).find(",67108864,4e-07,4e-07,"), std::string::npos)
      << read_file(chased.csv);
  EXPECT_NE(chase_log.str().find("; chase over 64 MiB core 0 400 ns"), std::string::npos)
      << chase_log.str();
  // And to read half its L1d (48 KiB as reported, 53.5 KiB detected: the smaller), set against
  // its read/1 (296 GB/s): 150 GB/s is 0.51 times as fast.
  EXPECT_EQ(asked.l1_bytes, 24576u);
  EXPECT_EQ(chased_record["machine_now"]["samples"][0]["l1_bytes"].get<int>(), 24576);
  EXPECT_DOUBLE_EQ(
      chased_record["machine_now"]["samples"][0]["l1_read_bytes_per_second"].get<double>(), 150e9);
  EXPECT_NEAR(chased_record["machine_now"]["profile_l1_read_bytes_per_second"].get<double>(),
              296.2e9, 0.1e9);
  bool l1_noted = false;
  for (const auto& note : chased_record["notes"]) {
    l1_noted = l1_noted || note.get<std::string>().rfind(
                               "machine now: L1d read (1 thread) 150.0 GB/s, the profile's 296.2 "
                               "GB/s",
                               0) == 0;
  }
  EXPECT_TRUE(l1_noted) << chased_record["notes"];
  EXPECT_NE(read_file(chased.csv).find(",24576,150000000000,150000000000,"), std::string::npos)
      << read_file(chased.csv);
  EXPECT_NE(chase_log.str().find("; in-core read core 0 150.0 GB/s"), std::string::npos)
      << chase_log.str();

  // A probe that fails is noted, and the check goes on.
  const Probe failing = [](const ProbeSizes&) -> std::vector<MachineSample> {
    throw std::runtime_error("no memory for the triad");
  };
  CheckOptions failed = tiny(scratch("probe-fails"));
  EXPECT_EQ(check_command(failed, out, log, fake, failing), 0);
  const nlohmann::json f = nlohmann::json::parse(read_file(failed.json));
  EXPECT_TRUE(f["complete"].get<bool>());
  EXPECT_EQ(f["records"][0]["notes"][0].get<std::string>(),
            "machine before the runs: not probed (no memory for the triad)");

  // Without a probe the records say nothing of the machine.
  CheckOptions plain = tiny(scratch("no-probe"));
  EXPECT_EQ(check_command(plain, out, log, fake), 0);
  const nlohmann::json k = nlohmann::json::parse(read_file(plain.json));
  EXPECT_FALSE(k["records"][0].contains("machine_now"));
}

// A sample before or after the runs.
MachineSample when(MachineSample s, const char* at) {
  s.when = at;
  return s;
}

TEST(CheckProbe, TheProfileInTheStateTheProbesSaw) {
  profile::Profile p = probed_profile();  // triad/1 30 GB/s [28 .. 32], triad/2 40 GB/s
  profile::MemoryLevel& dram = p.memory.back();
  dram.bandwidth["copy/2"] = quantity(42e9, "B/s");
  dram.bandwidth["indexed/1"] = quantity(10e9, "B/s");
  dram.bandwidth["indexed/2"] = quantity(19e9, "B/s");
  p.dram_bandwidth = {{"triad", 2, 1u << 30, quantity(41e9, "B/s")},
                      {"indexed", 2, 1u << 30, quantity(19.5e9, "B/s")}};
  // Two cores at once at 78 and 82 GB/s before and after the runs: twice the profile's 40. One
  // core at 30 GB/s: as profiled.
  const std::vector<MachineSample> fast = {
      when(sample(30e9, 0.5e-9), "before"), when(at_once(78e9, 2), "before"),
      when(sample(30e9, 0.5e-9), "after"), when(at_once(82e9, 2), "after")};
  EXPECT_EQ(state_moved(fast), "");
  const StateNow now = profile_in_state_now(p, fast);
  ASSERT_TRUE(now.scaled);
  const auto& scaled = now.profile.memory.back().bandwidth;
  EXPECT_DOUBLE_EQ(scaled.at("triad/2").value, 80e9);
  EXPECT_DOUBLE_EQ(scaled.at("copy/2").value, 84e9);  // no copy/1 to bound it
  // indexed with 2 threads: 19 x 2 = 38 GB/s is more than twice its 10 alone: at most 20.
  EXPECT_DOUBLE_EQ(scaled.at("indexed/2").value, 20e9);
  EXPECT_DOUBLE_EQ(scaled.at("triad/1").value, 30e9);  // x 1.00, its interval too
  EXPECT_DOUBLE_EQ(scaled.at("triad/1").interval->low, 28e9);
  EXPECT_DOUBLE_EQ(now.profile.dram_bandwidth[0].bytes_per_second.value, 82e9);
  EXPECT_DOUBLE_EQ(now.profile.dram_bandwidth[1].bytes_per_second.value, 20e9);
  EXPECT_EQ(now.profile.memory.front(), p.memory.front());  // the caches as profiled
  ASSERT_EQ(now.notes.size(), 2u);
  EXPECT_EQ(now.notes[0],
            "state now: DRAM bandwidths with 1 thread x 1.00 (triad 30.0 GB/s around the runs, the "
            "profile's 30.0 GB/s)");
  EXPECT_EQ(now.notes[1],
            "state now: DRAM bandwidths with 2 threads x 2.00 (triad 80.0 GB/s around the runs, "
            "the profile's 40.0 GB/s); indexed 19.0 GB/s -> 20.0 GB/s, at most 2 x its one-thread "
            "figure");

  // Slower than profiled, 20 GB/s with two: x 0.50, but indexed not below the triad's 20 there,
  // copy (21) above it.
  const StateNow slow = profile_in_state_now(p, {when(at_once(20e9, 2), "before")});
  ASSERT_TRUE(slow.scaled);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().bandwidth.at("triad/2").value, 20e9);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().bandwidth.at("copy/2").value, 21e9);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().bandwidth.at("indexed/2").value, 19e9);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().bandwidth.at("triad/1").value, 30e9);  // unprobed
  EXPECT_NE(slow.notes[0].find("indexed kept at 19.0 GB/s, not below the triad's 20.0 GB/s there"),
            std::string::npos)
      << slow.notes[0];

  // The state moved during the runs (40 then 80 GB/s, more than 15% apart): they timed neither
  // state, and nothing is scaled.
  const std::vector<MachineSample> moving = {when(at_once(40e9, 2), "before"),
                                             when(at_once(80e9, 2), "after")};
  EXPECT_EQ(state_moved(moving),
            "DRAM triad (2 threads) moved from 40.0 GB/s before the runs to 80.0 GB/s after");
  const StateNow moved = profile_in_state_now(p, moving);
  EXPECT_FALSE(moved.scaled);
  EXPECT_EQ(moved.profile, p);
  ASSERT_EQ(moved.notes.size(), 1u);
  EXPECT_EQ(moved.notes[0],
            "state now: DRAM triad (2 threads) moved from 40.0 GB/s before the runs to 80.0 GB/s "
            "after: its bandwidths as profiled");
  // 15% apart is still one state.
  EXPECT_EQ(state_moved({when(at_once(40e9, 2), "before"), when(at_once(46e9, 2), "after")}), "");
  // A thread count the profile has no triad for, a probe that measured nothing, no samples: as
  // profiled.
  EXPECT_FALSE(profile_in_state_now(p, {at_once(90e9, 4)}).scaled);
  EXPECT_FALSE(profile_in_state_now(p, {sample(0, 0)}).scaled);
  EXPECT_FALSE(profile_in_state_now(p, {}).scaled);
  EXPECT_FALSE(profile_in_state_now(profile::Profile{}, fast).scaled);
}

// Probes of the size the profile's own probes were taken at are set against those probes' usual
// state, like against like: one core at 18 GB/s where the profile's probes usually read 24 (its
// triad/1 says 30) is x 0.75, not x 0.60. Two cores at once at 40 GB/s where its probes read 32:
// x 1.25 (its triad/2, 40, would say x 1.00). A probe of another size, or of none known (a record
// from before the size was kept), is set against the triad as before.
TEST(CheckProbe, ProbesOfTheProfilesSizeAreSetAgainstItsProbesUsualState) {
  constexpr std::uint64_t bytes = 192u << 20;
  profile::Profile p = probed_profile();  // triad/1 30 GB/s [28 .. 32], triad/2 40 GB/s
  p.usual_state = {{1, bytes, quantity(24e9, "B/s")}, {2, bytes, quantity(32e9, "B/s")}};
  MachineSample one = when(sample(18e9, 0.5e-9), "before");
  one.triad_bytes = bytes;
  MachineSample both = when(at_once(40e9, 2), "before");
  both.triad_bytes = bytes - 24;  // the cores at once split it in whole elements: within 1%
  const StateNow now = profile_in_state_now(p, {one, both});
  ASSERT_TRUE(now.scaled);
  const auto& scaled = now.profile.memory.back().bandwidth;
  EXPECT_DOUBLE_EQ(scaled.at("triad/1").value, 30e9 * 0.75);
  EXPECT_DOUBLE_EQ(scaled.at("triad/2").value, 40e9 * 1.25);
  ASSERT_EQ(now.notes.size(), 2u);
  EXPECT_EQ(now.notes[0],
            "state now: DRAM bandwidths with 1 thread x 0.75 (triad 18.0 GB/s around the runs, the "
            "profile's probes' usual state 24.0 GB/s)");
  const std::vector<std::string> notes = drift_notes(p, {one, both});
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "machine now: DRAM triad (1 thread) 18.0 GB/s, the profile's probes' usual 24.0 GB/s: "
            "0.75 times as fast on average");
  EXPECT_EQ(notes[1],
            "machine now: DRAM triad (2 threads at once) 40.0 GB/s, the profile's probes' usual "
            "32.0 GB/s: 1.25 times as fast on average");
  EXPECT_EQ(usual_state_for(p, 1, {one}), &p.usual_state[0]);

  for (const std::uint64_t other : {std::uint64_t{256u << 20}, std::uint64_t{0}}) {
    MachineSample elsewhere = one;
    elsewhere.triad_bytes = other;
    EXPECT_EQ(usual_state_for(p, 1, {elsewhere}), nullptr);
    const StateNow against_triad = profile_in_state_now(p, {elsewhere});
    EXPECT_DOUBLE_EQ(against_triad.profile.memory.back().bandwidth.at("triad/1").value, 18e9);
    EXPECT_EQ(against_triad.notes[0],
              "state now: DRAM bandwidths with 1 thread x 0.60 (triad 18.0 GB/s around the runs, "
              "the profile's 30.0 GB/s)");
  }
  // The probe is taken at the profile's probes' size, where it fits an eighth of the memory (or
  // the memory is not known); else sized as before: 8 x the 32 MiB L3 seen, within 1/8 of 1 GiB.
  EXPECT_EQ(probe_bytes(p, 64ull << 30), bytes);
  EXPECT_EQ(probe_bytes(p, 0), bytes);
  EXPECT_EQ(probe_bytes(p, 1ull << 30), 128u << 20);

  // The size goes into the record and comes back with the recorded probes.
  const fs::path folder = scratch("usual-state");
  Record r;
  r.setting = "";
  r.n = 1;
  r.machine_now = {one, both};
  r.profile_usual_triad = p.usual_state[0].dram_triad;
  const fs::path file = folder / "record.json";
  write_file_atomically(file, records_json({r}, true).dump(2));
  const auto recorded = recorded_machine_now(file.string());
  ASSERT_EQ(recorded.at({"", 1}).size(), 2u);
  EXPECT_EQ(recorded.at({"", 1})[0].triad_bytes, bytes);
  EXPECT_EQ(recorded.at({"", 1})[1].triad_bytes, bytes - 24);
  const nlohmann::json j = nlohmann::json::parse(read_file(file));
  EXPECT_DOUBLE_EQ(
      j["records"][0]["machine_now"]["profile_usual_triad_bytes_per_second"].get<double>(), 24e9);
}

// One core's chase of `bytes` taking `seconds` a load (and the triad and add chain as profiled).
MachineSample chased(std::uint64_t bytes, double seconds, const char* at) {
  MachineSample s = when(sample(30e9, 0.5e-9), at);
  s.chase_bytes = bytes;
  s.dram_chase_seconds = seconds;
  return s;
}

TEST(CheckProbe, MemoryLatenciesFollowTheChaseTheProbesSaw) {
  profile::Profile p = probed_profile();  // L3 claimed 512 MiB, found at 32 MiB
  p.random_chase = {{1, 64u << 20, quantity(100e-9, "s")},
                    {1, 1024u << 20, quantity(200e-9, "s")},
                    {2, 1024u << 20, quantity(250e-9, "s")}};
  p.column_walk = {{1, 16u << 20, 16384, quantity(4e-9, "s")},
                   {1, 1024u << 20, 16384, quantity(10e-9, "s")}};
  p.line_gather = {{"copy", 1, 128u << 20, 4096, quantity(6e-9, "s")}};
  profile::Quantity latency = quantity(180e-9, "s");
  latency.interval = profile::Interval{170e-9, 190e-9, 1};
  p.memory.back().latency = latency;
  // The chase over 1 GiB at 250 ns before and 250 after, the profile's 200: x 1.25 for what lies
  // at or beyond the larger of the L3's claim and its step (512 MiB), and for every gather.
  const StateNow slow = profile_in_state_now(
      p, {chased(1024u << 20, 250e-9, "before"), chased(1024u << 20, 250e-9, "after")});
  ASSERT_TRUE(slow.scaled);
  EXPECT_DOUBLE_EQ(slow.profile.random_chase[0].seconds.value, 100e-9);  // 64 MiB: in the L3
  EXPECT_DOUBLE_EQ(slow.profile.random_chase[1].seconds.value, 250e-9);
  EXPECT_DOUBLE_EQ(slow.profile.random_chase[2].seconds.value, 312.5e-9);  // two threads too
  EXPECT_DOUBLE_EQ(slow.profile.column_walk[0].seconds.value, 4e-9);
  EXPECT_DOUBLE_EQ(slow.profile.column_walk[1].seconds.value, 12.5e-9);
  EXPECT_DOUBLE_EQ(slow.profile.line_gather[0].seconds.value, 7.5e-9);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().latency->value, 225e-9);
  EXPECT_DOUBLE_EQ(slow.profile.memory.back().latency->interval->high, 237.5e-9);
  EXPECT_EQ(slow.profile.memory.back().bandwidth, p.memory.back().bandwidth);  // triad as profiled
  ASSERT_EQ(slow.notes.size(), 2u);
  EXPECT_EQ(slow.notes[1],
            "state now: memory latencies x 1.25 (random chase over 1 GiB 250 ns around the runs, "
            "the profile's 200 ns): the random chase and the column walk from 512 MiB on, the line "
            "gathers, the memory's latency");
  // The chase moved during the runs (150 then 250 ns): latencies as profiled.
  const StateNow moved = profile_in_state_now(
      p, {chased(1024u << 20, 150e-9, "before"), chased(1024u << 20, 250e-9, "after")});
  EXPECT_EQ(moved.profile.random_chase, p.random_chase);
  EXPECT_EQ(moved.profile.line_gather, p.line_gather);
  EXPECT_EQ(moved.notes.back(),
            "state now: random chase over 1 GiB moved from 150 ns before the runs to 250 ns after: "
            "memory latencies as profiled");
  // A chase of a size the profile has no point for: as profiled.
  const StateNow other = profile_in_state_now(p, {chased(256u << 20, 250e-9, "before")});
  EXPECT_EQ(other.profile.random_chase, p.random_chase);
}

// The DRAM sweep (check/tests/dram_sweep.csv: 24 GB of triad traffic over 1 GB) on a profile of
// this guest: T_n = 24e9 / triad/n.
CheckOptions dram_sweep(const fs::path& folder) {
  CheckOptions o = tiny(folder);
  o.spreadsheet = "check/tests/dram_sweep.csv";
  o.machine = "examples/corpus/records/epyc-vm-1126p/epyc-vm-1126p.yaml";
  o.command = {"echo", "{n}"};
  return o;
}

TEST(CheckCommand, APointIsPricedAgainInTheStateTheProbesSaw) {
  const fs::path folder = scratch("state-now");
  CheckOptions o = dram_sweep(folder);
  const profile::Profile target = profile::read_profile(o.machine);
  const double one = profile_dram_triad(target, 1)->value,
               two = profile_dram_triad(target, 2)->value;
  // The probe sees the cores at once at twice the profile's triad/2, but at n = 2 the state moves
  // during the first runs (from twice to the profile's own): those runs are set aside and the
  // point measured again. The runs take 0.25 s, then 0.4 s while the state moved.
  int probes = 0;
  const Probe probe = [&](const ProbeSizes&) {
    ++probes;
    const bool moving = probes == 4;  // after the first runs at n = 2
    return std::vector<MachineSample>{sample(one, 0.5e-9), at_once(moving ? two : 2 * two, 2)};
  };
  int runs = 0;
  const Runner fake = [&](const std::vector<std::string>&) {
    ++runs;
    return printing({runs == 2 ? 0.4 : 0.25});
  };
  std::ostringstream out, log;
  EXPECT_EQ(check_command(o, out, log, fake, probe), 0);
  EXPECT_EQ(runs, 3);  // n = 1 once, n = 2 twice
  EXPECT_EQ(probes, 6);
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  const auto& r1 = j["records"][0];
  const auto& r2 = j["records"][1];
  // P as profiled: 24e9 / triad/n. P' in the state the probes saw: one core as profiled, the
  // two at once twice as fast, so 24e9 / (2 triad/2) at n = 2.
  EXPECT_NEAR(r1["predicted_seconds"].get<double>(), 24e9 / one, 1e-9);
  EXPECT_NEAR(r1["predicted_in_state_now_seconds"].get<double>(), 24e9 / one, 1e-9);
  EXPECT_NEAR(r2["predicted_seconds"].get<double>(), 24e9 / two, 1e-9);
  EXPECT_NEAR(r2["predicted_in_state_now_seconds"].get<double>(), 12e9 / two, 1e-9);
  EXPECT_DOUBLE_EQ(r2["measured_median_seconds"].get<double>(), 0.25);  // the runs kept
  EXPECT_NEAR(r2["error_ratio_in_state_now"].get<double>(),
              std::max(0.25, 12e9 / two) / std::min(0.25, 12e9 / two), 1e-9);
  EXPECT_NEAR(r2["error_ratio"].get<double>(), (24e9 / two) / 0.25, 1e-9);
  // The runs set aside are named, and only the kept runs' probes are recorded.
  bool named = false;
  for (const auto& note : r2["notes"]) {
    named = named || note.get<std::string>().rfind(
                         "measured again: runs of median 400 ms set "
                         "aside, timed while DRAM triad (2 threads) "
                         "moved from ",
                         0) == 0;
  }
  EXPECT_TRUE(named) << r2["notes"];
  EXPECT_EQ(r2["machine_now"]["samples"].size(), 4u);
  EXPECT_TRUE(j["summary"].contains("mean_error_ratio_in_state_now"));
  EXPECT_NE(out.str().find("E = max(T, P') / min(T, P'), P' priced in the memory state the probes "
                           "saw (2 of 2 points; P elsewhere)"),
            std::string::npos)
      << out.str();

  // The same records scored again: their probes stand in for probing, and give the same P'.
  CheckOptions again = dram_sweep(scratch("state-now-again"));
  again.machine_now_from = o.json;
  std::ostringstream replay_out;
  EXPECT_EQ(check_command(again, replay_out, log, fake), 0);
  const nlohmann::json k = nlohmann::json::parse(read_file(again.json));
  EXPECT_NEAR(k["records"][1]["predicted_in_state_now_seconds"].get<double>(), 12e9 / two, 1e-9);

  // A state that keeps moving: measured three times in all, no set steadier than another, so all
  // the runs are kept together (not the last set alone) and priced as profiled. The sets print
  // 0.3 and 0.31, then 0.5 and 0.52, then 0.2 and 0.21: the median of the six is 0.305, where the
  // last set's would be 0.205.
  int flips = 0;
  const Probe flipping = [&](const ProbeSizes&) {
    ++flips;
    return std::vector<MachineSample>{at_once(flips % 2 ? two : 2 * two, 2)};
  };
  CheckOptions restless = dram_sweep(scratch("state-restless"));
  restless.ranks = "2";
  runs = 0;
  const Runner sets = [&](const std::vector<std::string>&) {
    ++runs;
    const double first = runs == 1 ? 0.3 : runs == 2 ? 0.5 : 0.2;
    return printing({first, first + 0.01 * (runs == 2 ? 2 : 1)});
  };
  EXPECT_EQ(check_command(restless, out, log, sets, flipping), 0);
  EXPECT_EQ(runs, 3);
  const nlohmann::json m = nlohmann::json::parse(read_file(restless.json));
  const auto& kept = m["records"][0];
  EXPECT_NEAR(kept["measured_median_seconds"].get<double>(), 0.305, 1e-12);
  EXPECT_NEAR(kept["measured_min_seconds"].get<double>(), 0.2, 1e-12);
  EXPECT_NEAR(kept["measured_max_seconds"].get<double>(), 0.52, 1e-12);
  EXPECT_NEAR(kept["error_ratio"].get<double>(),
              std::max(0.305, 24e9 / two) / std::min(0.305, 24e9 / two), 1e-9);
  // Nothing is said to be set aside; one note names the three sets, and every set's probes are
  // kept.
  std::size_t set_aside = 0, together = 0;
  for (const auto& note : kept["notes"]) {
    const std::string text = note.get<std::string>();
    set_aside += text.find("set aside") != std::string::npos ? 1 : 0;
    if (text.rfind("the state moved during every set of runs (runs of median 305 ms timed "
                   "while DRAM triad (2 threads) moved from ",
                   0) == 0) {
      ++together;
      EXPECT_NE(text.find("; runs of median 510 ms timed while "), std::string::npos) << text;
      EXPECT_NE(text.find("; runs of median 205 ms timed while "), std::string::npos) << text;
      EXPECT_NE(text.find("): all 6 runs kept together"), std::string::npos) << text;
    }
  }
  EXPECT_EQ(set_aside, 0u) << kept["notes"];
  EXPECT_EQ(together, 1u) << kept["notes"];
  EXPECT_EQ(kept["repetitions"].get<std::size_t>(), 6u);
  EXPECT_EQ(kept["machine_now"]["samples"].size(), 6u);
  EXPECT_FALSE(kept.contains("predicted_in_state_now_seconds"));
  EXPECT_EQ(kept["state_now_notes"].size(), 1u);
}

TEST(CheckCommand, RecordedProbesThatAreNoRecordsAreRefused) {
  const fs::path folder = scratch("recorded");
  const auto refused = [&](const std::string& text, const std::vector<std::string>& parts) {
    const fs::path file = folder / "records.json";
    write_file_atomically(file, text);
    std::vector<std::string> all = {file.string()};
    all.insert(all.end(), parts.begin(), parts.end());
    expect_error([&] { recorded_machine_now(file.string()); }, ExitCode::bad_input, all);
  };
  refused("{", {"not JSON"});
  refused("{\"points\": []}", {"records: absent or not a list"});
  refused("{\"records\": [{\"n\": 2}]}", {"records[0]", "n (a whole number) and setting"});
  refused("{\"records\": [{\"n\": 2, \"setting\": \"\", \"machine_now\": {}}]}",
          {"records[0].machine_now.samples: absent or not a list"});
  refused(
      "{\"records\": [{\"n\": 2, \"setting\": \"\", \"machine_now\": {\"samples\": [{\"threads\": "
      "2, \"when\": \"before\", \"dram_triad_bytes_per_second\": \"fast\"}]}}]}",
      {"records[0].machine_now.samples[0].dram_triad_bytes_per_second: absent or no number"});
  refused(
      "{\"records\": [{\"n\": 2, \"setting\": \"\", \"machine_now\": {\"samples\": [{\"threads\": "
      "0, \"when\": \"before\", \"dram_triad_bytes_per_second\": 1}]}}]}",
      {"samples[0].threads: expected at least 1"});
  refused(
      "{\"records\": [{\"n\": 2, \"setting\": \"\", \"machine_now\": {\"samples\": [{\"threads\": "
      "2, \"when\": \"during\", \"dram_triad_bytes_per_second\": 1}]}}]}",
      {"samples[0].when: 'during'; expected before or after"});
  refused(
      "{\"records\": [{\"n\": 2, \"setting\": \"\", \"machine_now\": {\"samples\": [{\"threads\": "
      "2, \"when\": \"after\", \"dram_triad_bytes_per_second\": -5e10}]}}]}",
      {"samples[0].dram_triad_bytes_per_second: -50000000000; expected a rate >= 0"});
  // A record without probes is no error: it has none to give.
  write_file_atomically(folder / "plain.json", "{\"records\": [{\"n\": 1, \"setting\": \"\"}]}");
  EXPECT_TRUE(recorded_machine_now((folder / "plain.json").string()).empty());
}

TEST(CheckComponents, PhasesAreSetAgainstTheRowsTheyName) {
  const std::vector<RowPrediction> rows = {{"spmv", 2.0, "DRAM bandwidth (read)", false},
                                           {"dot", 1.0, "add latency", false},
                                           {"reduce", 0.5, "allreduce", true},
                                           {"update", 1.0, "DRAM bandwidth (triad)", false}};
  // Computation against the slowest process, communication against the fastest.
  const std::vector<ComponentCheck> c = match_components(
      rows, {{"spmv", {3.0, 2.5}}, {"dot + reduce", {1.6, 1.2}}, {"mystery", {0.2, 0.1}}});
  ASSERT_EQ(c.size(), 4u);
  // In the spreadsheet's order; a phase naming no row after them; an unmarked row last.
  EXPECT_EQ(c[0].name, "spmv");
  EXPECT_DOUBLE_EQ(*c[0].predicted, 2.0);
  EXPECT_DOUBLE_EQ(*c[0].measured, 3.0);
  EXPECT_DOUBLE_EQ(*c[0].error_ratio, 1.5);
  EXPECT_EQ(c[0].bound, "DRAM bandwidth (read)");
  EXPECT_EQ(c[1].name, "dot + reduce");  // the sum of the two rows: 1.5 against 1.2
  EXPECT_DOUBLE_EQ(*c[1].predicted, 1.5);
  EXPECT_DOUBLE_EQ(*c[1].error_ratio, 1.25);
  EXPECT_EQ(c[1].bound, "add latency; allreduce");
  EXPECT_TRUE(c[1].communication);
  EXPECT_FALSE(c[0].communication);
  EXPECT_EQ(c[2].name, "mystery");
  EXPECT_FALSE(c[2].predicted);
  EXPECT_FALSE(c[2].error_ratio);
  EXPECT_EQ(c[2].bound, "the spreadsheet has no row 'mystery'");
  EXPECT_EQ(c[3].name, "update");
  EXPECT_DOUBLE_EQ(*c[3].predicted, 1.0);
  EXPECT_FALSE(c[3].measured);
  EXPECT_NE(c[3].bound.find("no phase marks it"), std::string::npos);
  // A phase with a row the spreadsheet lacks gets no prediction, and the rows it does name are
  // listed as unmarked, so that no row's prediction is lost.
  const auto partial = match_components(rows, {{"spmv + unpack", {3.0, 3.0}}});
  ASSERT_EQ(partial.size(), 5u);
  EXPECT_EQ(partial[0].name, "spmv + unpack");
  EXPECT_FALSE(partial[0].predicted);
  EXPECT_EQ(partial[0].bound, "the spreadsheet has no row 'unpack'");
  EXPECT_EQ(partial[1].name, "spmv");
  EXPECT_DOUBLE_EQ(*partial[1].predicted, 2.0);
  EXPECT_FALSE(partial[1].measured);
  // A phase predicted at nothing (a halo at one rank) has no E.
  const auto zero = match_components({{"halo", 0.0, "shift", true}}, {{"halo", {2e-6, 1e-6}}});
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_FALSE(zero[0].error_ratio);
  // A row two phases name has its time in neither alone: both go without a prediction, and their
  // rows are listed as unmarked, so that no row is counted twice and none is lost.
  const auto twice = match_components(
      rows, {{"spmv", {3.0, 3.0}}, {"spmv + dot", {4.0, 4.0}}, {"update", {1.0, 1.0}}});
  ASSERT_EQ(twice.size(), 6u);
  EXPECT_EQ(twice[0].name, "spmv");
  EXPECT_FALSE(twice[0].predicted);
  EXPECT_FALSE(twice[0].error_ratio);
  EXPECT_EQ(twice[0].bound, "no prediction: 'spmv' is in 'spmv + dot' too");
  EXPECT_EQ(twice[1].name, "spmv + dot");
  EXPECT_FALSE(twice[1].predicted);
  EXPECT_EQ(twice[1].bound, "no prediction: 'spmv' is in 'spmv' too");
  EXPECT_EQ(twice[2].name, "update");
  EXPECT_DOUBLE_EQ(*twice[2].error_ratio, 1.0);
  EXPECT_EQ(twice[3].name, "spmv");
  EXPECT_FALSE(twice[3].measured);
  EXPECT_EQ(twice[4].name, "dot");
  EXPECT_EQ(twice[5].name, "reduce");
}

// A fake program whose processes each mark one phase, "A", the tiny sheet's component: `seconds`
// over its 3 repetitions on its only thread, written where sonde/phase.h writes a record.
RunOutput marking(const std::vector<double>& seconds) {
  const char* prefix = std::getenv("SONDE_PHASE_RECORD");
  EXPECT_NE(prefix, nullptr);
  EXPECT_STREQ(std::getenv("SONDE_PHASE_MODE"), "time");
  for (std::size_t rank = 0; rank < seconds.size() && prefix != nullptr; ++rank) {
    const nlohmann::json record = {
        {"pid", 100 + rank},
        {"rank", rank},
        {"mode", "time"},
        {"errors", nlohmann::json::array()},
        {"threads",
         {{{"thread", 0},
           {"named", false},
           {"phases", {{{"name", "A"}, {"occurrences", 3}, {"seconds", seconds[rank]}}}}}}}};
    write_file_atomically(std::string(prefix) + "." + std::to_string(100 + rank) + ".json",
                          record.dump());
  }
  return printing({0.9, 0.4, 0.5});
}

// The phase folders `sonde check --components` left in `folder`.
std::size_t phase_folders(const fs::path& folder) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().rfind(".sonde-check-phases-", 0) == 0) ++count;
  return count;
}

TEST(CheckComponents, TheProgramsPhasesAreTimedBesideTheirRows) {
  const fs::path folder = scratch("components");
  CheckOptions o = tiny(folder);
  o.ranks = "1";
  o.components = true;
  std::ostringstream out, log;
  ::setenv("SONDE_PHASE_MODE", "papi", 1);  // the user's own, put back after each run
  EXPECT_EQ(check_command(o, out, log, [](const auto&) { return marking({1.5}); }), 0);
  EXPECT_EQ(std::getenv("SONDE_PHASE_RECORD"), nullptr);  // set only while the program runs
  EXPECT_STREQ(std::getenv("SONDE_PHASE_MODE"), "papi");
  ::unsetenv("SONDE_PHASE_MODE");
  EXPECT_EQ(phase_folders(folder), 0u);  // the records went with the check
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  ASSERT_EQ(j["records"].size(), 1u);
  const auto& components = j["records"][0]["components"];
  ASSERT_EQ(components.size(), 1u);
  // P(A) = N / 1000 = 1 s at n = 1; T(A) = 1.5 s / 3 repetitions = 0.5 s: E = 2.
  EXPECT_EQ(components[0]["name"].get<std::string>(), "A");
  EXPECT_NEAR(components[0]["predicted_seconds"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(components[0]["measured_seconds"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(components[0]["error_ratio"].get<double>(), 2.0, 1e-9);
  EXPECT_NE(out.str().find("(spreadsheet), n = 1, per repetition"), std::string::npos) << out.str();

  // A program that marks no phase is still checked, and the record says why it has none.
  std::ostringstream out2, log2;
  EXPECT_EQ(check_command(o, out2, log2, [](const auto&) { return marking({}); }), 0);
  const nlohmann::json j2 = nlohmann::json::parse(read_file(o.json));
  EXPECT_FALSE(j2["records"][0].contains("components"));
  EXPECT_NE(j2["records"][0]["notes"].dump().find("phases not timed"), std::string::npos)
      << j2["records"][0]["notes"].dump();

  // A record that is no phase record: the point is kept, with a note naming the file.
  std::ostringstream out3, log3;
  const auto broken = [](const auto&) {
    write_file_atomically(std::string(std::getenv("SONDE_PHASE_RECORD")) + ".7.json",
                          "{\"threads\": 3}");
    return printing({0.5});
  };
  EXPECT_EQ(check_command(o, out3, log3, broken), 0);
  const std::string notes = nlohmann::json::parse(read_file(o.json))["records"][0]["notes"].dump();
  EXPECT_NE(notes.find(".7.json: not a phase record"), std::string::npos) << notes;
}

TEST(CheckComponents, SeveralProcesses) {
  const fs::path folder = scratch("components-ranks");
  CheckOptions o = tiny(folder);
  o.ranks = "2";
  o.launcher = "true";  // on the PATH; the fake runner never starts it
  o.components = true;
  std::ostringstream out, log;
  // Two processes, 0.6 and 1.2 s over 3 repetitions: A is computation, set against the slowest,
  // 0.4 s; P(A) at n = 2 is 0.5 s.
  EXPECT_EQ(check_command(o, out, log, [](const auto&) { return marking({0.6, 1.2}); }), 0);
  auto j = nlohmann::json::parse(read_file(o.json));
  EXPECT_NEAR(j["records"][0]["components"][0]["measured_seconds"].get<double>(), 0.4, 1e-12);
  EXPECT_NEAR(j["records"][0]["components"][0]["error_ratio"].get<double>(), 1.25, 1e-9);
  // One record for two processes under a launcher: the point says so.
  std::ostringstream out2, log2;
  EXPECT_EQ(check_command(o, out2, log2, [](const auto&) { return marking({0.6}); }), 0);
  j = nlohmann::json::parse(read_file(o.json));
  EXPECT_NE(j["records"][0]["notes"].dump().find("phases timed on 1 of 2 processes"),
            std::string::npos)
      << j["records"][0]["notes"].dump();
}

TEST(CheckComponents, SetsKeptTogetherAverageTheirPhasesOverEveryRepetition) {
  const fs::path folder = scratch("components-sets");
  CheckOptions o = tiny(folder);
  o.ranks = "1";
  o.components = true;
  // The state moves during every set of runs, so the three sets are kept together.
  int flips = 0;
  const Probe flipping = [&](const ProbeSizes&) {
    ++flips;
    return std::vector<MachineSample>{at_once(flips % 2 ? 20e9 : 40e9, 2)};
  };
  int runs = 0;
  const auto sets = [&](const auto&) {
    ++runs;
    return marking({runs == 1 ? 1.5 : runs == 2 ? 3.0 : 0.3});
  };
  std::ostringstream out, log;
  EXPECT_EQ(check_command(o, out, log, sets, flipping), 0);
  EXPECT_EQ(runs, 3);
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  // A: 1.5, 3.0 and 0.3 s over three repetitions each, (1.5 + 3.0 + 0.3) / 9 = 0.5333 s a
  // repetition, not the last set's 0.1.
  EXPECT_NEAR(j["records"][0]["components"][0]["measured_seconds"].get<double>(), 4.8 / 9, 1e-12);
  EXPECT_EQ(j["records"][0]["repetitions"].get<std::size_t>(), 9u);
}

TEST(CheckComponents, TheEnvironmentAndTheFolderGoWhenTheRunFails) {
  const fs::path folder = scratch("components-fails");
  CheckOptions o = tiny(folder);
  o.components = true;
  std::ostringstream out, log;
  const auto throwing = [](const auto&) -> RunOutput {
    throw Error(ExitCode::failure, "fake", "cannot start");
  };
  EXPECT_THROW(check_command(o, out, log, throwing), Error);
  EXPECT_EQ(std::getenv("SONDE_PHASE_RECORD"), nullptr);
  EXPECT_EQ(std::getenv("SONDE_PHASE_MODE"), nullptr);
  EXPECT_EQ(phase_folders(folder), 0u);
  // Not with --communication-only: a simulated run's phases cost nothing.
  o.communication_only = true;
  EXPECT_THROW(check_command(o, out, log, throwing), Error);
}

TEST(CheckCommand, TheSpreadsheetsOwnValuesWithoutSet) {
  const fs::path folder = scratch("own");
  CheckOptions o = tiny(folder);
  o.ranks = "4";
  o.json.clear();
  std::vector<std::string> argv;
  const Runner fake = [&](const std::vector<std::string>& a) {
    argv = a;
    return printing({0.25});
  };
  std::ostringstream out, log;
  EXPECT_EQ(check_command(o, out, log, fake), 0);
  EXPECT_EQ(argv, (std::vector<std::string>{"echo", "--N", "1000", "--K=10", "--ranks", "4",
                                            "--repetitions", "3"}));
  EXPECT_NE(out.str().find("(spreadsheet)"), std::string::npos) << out.str();
  // P = 1 / 4 = T: E = 1.
  EXPECT_NE(out.str().find("mean 1.00, max 1.00"), std::string::npos) << out.str();
  EXPECT_NE(log.str().find("printed 1 time for 3 repetitions"), std::string::npos);
}

TEST(CheckCommand, TheLauncherComesFirst) {
  const fs::path folder = scratch("launcher");
  CheckOptions o = tiny(folder);
  o.launcher = "sh --fake-option";  // on every PATH; never run here
  o.ranks = "2";
  std::vector<std::string> argv;
  const Runner fake = [&](const std::vector<std::string>& a) {
    argv = a;
    return printing({1});
  };
  std::ostringstream out, log;
  check_command(o, out, log, fake);
  EXPECT_EQ(argv, (std::vector<std::string>{"sh", "--fake-option", "-n", "2", "echo", "--N", "1000",
                                            "--K=10", "--ranks", "2", "--repetitions", "3"}));
}

TEST(CheckCommand, BadOptionsAreRefusedBeforeAnyRun) {
  const fs::path folder = scratch("refused");
  int runs = 0;
  const Runner fake = [&](const std::vector<std::string>&) {
    ++runs;
    return printing({1});
  };
  std::ostringstream out, log;
  const auto refused = [&](const std::function<void(CheckOptions&)>& change, ExitCode code,
                           const std::vector<std::string>& parts) {
    CheckOptions o = tiny(folder);
    change(o);
    expect_error([&] { check_command(o, out, log, fake); }, code, parts);
  };
  refused([](CheckOptions& o) { o.sets = {"N=8,M=2"}; }, ExitCode::usage,
          {"--set", "'N=8,M=2'", "no parameter 'M'", "K, N"});
  refused([](CheckOptions& o) { o.sets = {"N:8"}; }, ExitCode::usage, {"--set", "'N:8'"});
  refused([](CheckOptions& o) { o.ranks = "2,0"; }, ExitCode::usage, {"--ranks", "at least 1"});
  refused([](CheckOptions& o) { o.command.push_back("--size={SIZE}"); }, ExitCode::usage,
          {"{SIZE}", "no value"});
  refused(
      [](CheckOptions& o) {
        o.command = {"./no-such-program-here", "{N}"};
      },
      ExitCode::usage, {"'./no-such-program-here'", "not found"});
  refused([](CheckOptions& o) { o.command = {"no-such-program-here"}; }, ExitCode::usage,
          {"'no-such-program-here'", "not on the PATH"});
  refused([](CheckOptions& o) { o.launcher = "no-such-mpiexec -x"; }, ExitCode::usage,
          {"--launcher", "'no-such-mpiexec'", "--launcher \"\""});
  refused([](CheckOptions& o) { o.repetitions = 0; }, ExitCode::usage, {"--repetitions"});
  refused([](CheckOptions& o) { o.command.clear(); }, ExitCode::usage, {"no program"});
  refused([](CheckOptions& o) { o.spreadsheet = "check/tests/absent.csv"; }, ExitCode::bad_input,
          {"absent.csv"});
  EXPECT_EQ(runs, 0);
  EXPECT_FALSE(fs::exists(folder / "check.csv"));
}

TEST(CheckCommand, AFailureHalfWayKeepsThePointsBefore) {
  const fs::path folder = scratch("half-way");
  CheckOptions o = tiny(folder);
  o.ranks = "1,2,4";
  int runs = 0;
  const Runner fails_second = [&](const std::vector<std::string>&) {
    if (++runs < 2) return printing({0.5, 0.5, 0.5});
    RunOutput run;
    run.exit.code = 3;
    run.output = "step 1\n";
    run.tail = {"step 1", "out of memory"};
    return run;
  };
  std::ostringstream out, log;
  expect_error([&] { check_command(o, out, log, fails_second); }, ExitCode::failure,
               {"echo --N 1000 --K=10 --ranks 2", "exit status 3 at (spreadsheet), n = 2",
                "step 1 | out of memory", "1 point measured before is kept", "check.csv"});
  EXPECT_EQ(runs, 2);  // nothing run after the failure
  const std::string csv = read_file(o.csv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;  // the header and n = 1
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  EXPECT_FALSE(j["complete"].get<bool>());
  ASSERT_EQ(j["records"].size(), 1u);
  EXPECT_EQ(j["records"][0]["n"].get<int>(), 1);
  EXPECT_NE(j["error"].get<std::string>().find("exit status 3"), std::string::npos);
  EXPECT_NE(out.str().find("mean 2.00"), std::string::npos) << out.str();  // P = 1, T = 0.5
}

TEST(CheckCommand, AProgramThatPrintsNoTimeFails) {
  const fs::path folder = scratch("no-time");
  CheckOptions o = tiny(folder);
  const Runner silent = [](const std::vector<std::string>&) {
    RunOutput run;
    run.output = "hello\n";
    run.tail = {"hello"};
    return run;
  };
  std::ostringstream out, log;
  expect_error([&] { check_command(o, out, log, silent); }, ExitCode::failure,
               {"printed no time", "\"seconds\"", "hello", "no point was measured"});
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  EXPECT_TRUE(j["records"].empty());
  EXPECT_FALSE(j["complete"].get<bool>());
}

TEST(CheckCommand, AnInterruptKeepsThePointsBefore) {
  const fs::path folder = scratch("interrupt");
  CheckOptions o = tiny(folder);
  int runs = 0;
  const Runner interrupted_second = [&](const std::vector<std::string>&) {
    RunOutput run = printing({0.5});
    run.interrupted = ++runs == 2;
    return run;
  };
  std::ostringstream out, log;
  expect_error([&] { check_command(o, out, log, interrupted_second); }, ExitCode::interrupted,
               {"interrupted", "n = 2", "1 point measured before is kept"});
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  EXPECT_EQ(j["records"].size(), 1u);
}

// A run that hangs after printing its times (an MPI job stuck in MPI_Finalize): the failure names
// the limit, the point and that the work was done; the points before it are kept.
TEST(CheckCommand, ARunPastTheTimeLimitFailsAndKeepsThePointsBefore) {
  const fs::path folder = scratch("time-limit");
  CheckOptions o = tiny(folder);
  o.time_limit_seconds = 90;
  int runs = 0;
  const Runner hung_second = [&](const std::vector<std::string>&) {
    RunOutput run = printing({0.5, 0.5, 0.5});
    if (++runs == 2) {
      run.timed_out = true;
      run.exit = ChildExit{true, SIGTERM};
    }
    return run;
  };
  std::ostringstream out, log;
  expect_error([&] { check_command(o, out, log, hung_second); }, ExitCode::failure,
               {"did not end within --time-limit 90.0 s", "n = 2", "printed 3 of 3 times",
                "hung while ending", "1 point measured before is kept"});
  const nlohmann::json j = nlohmann::json::parse(read_file(o.json));
  EXPECT_EQ(j["records"].size(), 1u);
  EXPECT_FALSE(j["complete"].get<bool>());
}

// The real runner stops a run past its limit, and what the run started with it: SIGTERM to its
// process group, SIGKILL after the grace for one that ignores SIGTERM. The sleeps would take 30 s.
TEST(CheckRunner, StopsARunPastItsTimeLimitAndWhatItStarted) {
  std::ostringstream pass;
  const Runner runner = process_runner(pass, 0.2, 0.2);
  const auto start = std::chrono::steady_clock::now();
  const RunOutput stopped = runner({"sh", "-c", "echo '{\"seconds\": 0.5}'; sleep 30; echo late"});
  EXPECT_TRUE(stopped.timed_out);
  EXPECT_TRUE(stopped.exit.signaled);
  EXPECT_EQ(seconds_in(stopped.output, "sh"), std::vector<double>{0.5});
  EXPECT_EQ(stopped.output.find("late"), std::string::npos);

  const RunOutput ignoring_term = runner({"sh", "-c", "trap '' TERM; sleep 30"});
  EXPECT_TRUE(ignoring_term.timed_out);
  EXPECT_TRUE(ignoring_term.exit.signaled);
  EXPECT_EQ(ignoring_term.exit.code, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));

  const RunOutput quick = runner({"sh", "-c", "echo '{\"seconds\": 0.1}'"});
  EXPECT_FALSE(quick.timed_out);
  EXPECT_TRUE(quick.exit.ok());
}

// The real runner: time records are kept, every other line passed on, the exit status told.
TEST(CheckRunner, CapturesTheTimesAndPassesTheRestOn) {
  std::ostringstream pass;
  const Runner runner = process_runner(pass);
  const RunOutput ok = runner(
      {"sh", "-c", "echo starting; echo '{\"seconds\": 0.5}'; echo warning >&2; printf 'end'"});
  EXPECT_TRUE(ok.exit.ok());
  EXPECT_FALSE(ok.interrupted);
  EXPECT_EQ(seconds_in(ok.output, "sh"), std::vector<double>{0.5});
  EXPECT_NE(pass.str().find("starting\n"), std::string::npos) << pass.str();
  EXPECT_NE(pass.str().find("warning\n"), std::string::npos) << pass.str();
  EXPECT_NE(pass.str().find("end\n"), std::string::npos) << pass.str();
  EXPECT_EQ(pass.str().find("seconds"), std::string::npos) << pass.str();
  EXPECT_EQ(ok.tail.back(), "end");

  const RunOutput failed = runner({"sh", "-c", "echo broken >&2; exit 4"});
  EXPECT_FALSE(failed.exit.ok());
  EXPECT_EQ(failed.exit.code, 4);
  EXPECT_EQ(failed.tail, std::vector<std::string>{"broken"});
  EXPECT_THROW(runner({"/no/such/program"}), Error);
}

}  // namespace
}  // namespace sonde::check
