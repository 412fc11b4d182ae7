// The load over a run from /proc/stat and /proc/loadavg: hand-written texts with known answers.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/error.hpp"
#include "microbench/system_load.hpp"

namespace sonde::microbench {
namespace {

using std::chrono::seconds;

// A /proc/stat of two CPUs: the total line, the per-CPU lines and the rest.
std::string proc_stat(const std::string& cpu_fields) {
  return "cpu  " + cpu_fields +
         "\n"
         "cpu0 1 2 3 4 5 6 7 8 0 0\n"
         "cpu1 1 2 3 4 5 6 7 8 0 0\n"
         "intr 12345 0 0\n"
         "ctxt 987654\n"
         "btime 1700000000\n"
         "processes 4321\n";
}

const std::string loadavg = "0.50 0.40 0.30 2/345 6789\n";

TEST(SystemLoad, ParsesTheCpuLineTheCpusAndTheLoadAverage) {
  const LoadSample sample =
      parse_load_sample(proc_stat("10 20 30 40 50 60 70 80 90 100"), loadavg, 1.5);
  EXPECT_EQ(sample.cpu_jiffies,
            (std::vector<std::uint64_t>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
  EXPECT_EQ(sample.cpus, 2u);
  EXPECT_DOUBLE_EQ(sample.loadavg_1min, 0.5);
  EXPECT_DOUBLE_EQ(sample.own_cpu_seconds, 1.5);
}

TEST(SystemLoad, TenPercentSteal) {
  // Over 10 s on 2 CPUs at 100 Hz, 2000 jiffies: 800 user, 100 system, 800 idle, 100 iowait,
  // 200 steal; the guest fields (already in user) must not count twice.
  LoadSample start = parse_load_sample(proc_stat("1000 0 500 5000 100 0 0 300 50 0"), loadavg, 2.0);
  LoadSample end = parse_load_sample(proc_stat("1800 0 600 5800 200 0 0 500 850 0"),
                                     "1.25 0.5 0.25 1/2 3\n", 10.0);
  end.when = start.when + seconds(10);
  const LoadReport report = load_between(start, end);
  EXPECT_DOUBLE_EQ(report.seconds, 10.0);
  EXPECT_DOUBLE_EQ(report.steal_fraction, 0.1);
  EXPECT_DOUBLE_EQ(report.busy_cpus, 0.9) << "900 of 2000 jiffies on 2 CPUs";
  EXPECT_DOUBLE_EQ(report.own_cpus, 0.8) << "8 s of CPU time in 10 s";
  EXPECT_NEAR(report.other_busy_cpus, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(report.loadavg_start, 0.5);
  EXPECT_DOUBLE_EQ(report.loadavg_end, 1.25);

  const nlohmann::json json = to_json(report);
  EXPECT_DOUBLE_EQ(json.at("steal_fraction").get<double>(), 0.1);
  for (const char* key : {"seconds", "steal_fraction", "busy_cpus", "own_cpus", "other_busy_cpus",
                          "loadavg_start", "loadavg_end"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
}

// A run counts as beside other work beyond 5% stolen or a quarter of a CPU busy with others.
TEST(SystemLoad, TheBusyNoteNamesTheStealAndTheOtherCpus) {
  EXPECT_EQ(busy_note(0.05, 0.25), "");
  EXPECT_EQ(busy_note(0.07, 0.1),
            "ran beside other work: 7% of the CPU time stolen by the hypervisor, 0.10 CPUs busy "
            "with other processes");
  EXPECT_EQ(busy_note(0, 0.4),
            "ran beside other work: 0% of the CPU time stolen by the hypervisor, 0.40 CPUs busy "
            "with other processes");
}

TEST(SystemLoad, NoStealFieldIsNoSteal) {
  // An old kernel: user nice system idle only.
  LoadSample start = parse_load_sample(proc_stat("100 0 0 100"), loadavg, 0.0);
  LoadSample end = parse_load_sample(proc_stat("200 0 0 200"), loadavg, 0.5);
  end.when = start.when + seconds(1);
  const LoadReport report = load_between(start, end);
  EXPECT_EQ(report.steal_fraction, 0.0);
  EXPECT_DOUBLE_EQ(report.busy_cpus, 1.0);
  EXPECT_DOUBLE_EQ(report.own_cpus, 0.5);
  EXPECT_DOUBLE_EQ(report.other_busy_cpus, 0.5);
}

TEST(SystemLoad, OwnUseAboveTheBusyCpusLeavesNoOtherLoad) {
  LoadSample start = parse_load_sample(proc_stat("0 0 0 0 0 0 0 0"), loadavg, 0.0);
  LoadSample end = parse_load_sample(proc_stat("50 0 0 150 0 0 0 0"), loadavg, 1.0);
  end.when = start.when + seconds(1);
  const LoadReport report = load_between(start, end);
  EXPECT_DOUBLE_EQ(report.busy_cpus, 0.5);
  EXPECT_DOUBLE_EQ(report.own_cpus, 1.0);
  EXPECT_EQ(report.other_busy_cpus, 0.0);
}

TEST(SystemLoad, SameSampleTwiceIsNoLoad) {
  const LoadSample sample = parse_load_sample(proc_stat("1 2 3 4 5 6 7 8"), loadavg, 1.0);
  const LoadReport report = load_between(sample, sample);
  EXPECT_EQ(report.seconds, 0.0);
  EXPECT_EQ(report.steal_fraction, 0.0);
  EXPECT_EQ(report.busy_cpus, 0.0);
  EXPECT_EQ(report.own_cpus, 0.0);
}

void expect_refused(const std::string& stat, const std::string& avg, const std::string& file) {
  try {
    parse_load_sample(stat, avg, 0.0);
    ADD_FAILURE() << "accepted: " << stat << " / " << avg;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_EQ(e.where(), file) << e.what();
  }
}

TEST(SystemLoad, RefusesMalformedTextNamingTheFile) {
  expect_refused("", loadavg, "/proc/stat");
  expect_refused("cpu0 1 2 3 4\nintr 1\n", loadavg, "/proc/stat");
  expect_refused(proc_stat("1 2 x 4"), loadavg, "/proc/stat");
  expect_refused(proc_stat("1 2 -3 4"), loadavg, "/proc/stat");
  expect_refused(proc_stat("1 2 3"), loadavg, "/proc/stat");
  expect_refused(proc_stat("1 2 3 4") + "cpu 1 2 3 4\n", loadavg, "/proc/stat");
  expect_refused(proc_stat("1 2 3 4"), "", "/proc/loadavg");
  expect_refused(proc_stat("1 2 3 4"), "high 0.4 0.3 1/2 3\n", "/proc/loadavg");
  expect_refused(proc_stat("1 2 3 4"), "-1 0.4 0.3 1/2 3\n", "/proc/loadavg");
}

TEST(SystemLoad, SamplesThisSystem) {
  const LoadSample start = sample_load();
  EXPECT_GE(start.cpu_jiffies.size(), 4u);
  EXPECT_GE(start.cpus, 1u);
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + 1.0;
  const LoadSample end = sample_load();
  EXPECT_GT(end.own_cpu_seconds, start.own_cpu_seconds);
  const LoadReport report = load_between(start, end);
  EXPECT_GT(report.seconds, 0.0);
  EXPECT_GE(report.steal_fraction, 0.0);
  EXPECT_LE(report.steal_fraction, 1.0);
  EXPECT_LE(report.busy_cpus, static_cast<double>(end.cpus) + 1e-9);
  EXPECT_GE(report.other_busy_cpus, 0.0);
}

}  // namespace
}  // namespace sonde::microbench
