// Collecting a counter file: callgrind's dumps read, the valgrind passes chosen from a profile's
// caches, and the BSP sort example collected for real (its times always; its counts under
// valgrind, outside sanitizer builds).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "counters/collect.hpp"
#include "counters/counter_file.hpp"
#include "profile/profile.hpp"

namespace {

using namespace sonde;
using counters::parse_callgrind_dump;

TEST(CallgrindDump, ReadsThePhaseAndPadsTrailingZeros) {
  const std::string text =
      "version: 1\npid: 10181\nthread: 2\n"
      "desc: Trigger: Client Request: sonde phase 1 radix.ss1.count\n"
      "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw\n"
      "summary: 801789 100186 355 27 100022 57 27 96631 57\n"
      "totals: 801796 100185 361 27 100022 59 27 96631 59 0 63\n";
  const auto dump = parse_callgrind_dump(text, "f");
  ASSERT_TRUE(dump);
  EXPECT_EQ(dump->processor, 1);
  EXPECT_EQ(dump->phase, "radix.ss1.count");
  EXPECT_EQ(dump->events.at("Dr"), 100186);
  EXPECT_EQ(dump->events.at("DLmr"), 96631);
  EXPECT_EQ(dump->events.at("DLdmw"), 0);  // left out of the summary
}

TEST(CallgrindDump, IgnoresOtherDumpsAndRejectsMalformedOnes) {
  EXPECT_FALSE(
      parse_callgrind_dump("desc: Trigger: Program termination\nevents: Ir\nsummary: 5\n", "f"));
  EXPECT_THROW(parse_callgrind_dump("desc: Trigger: Client Request: sonde phase x y\n", "f"),
               Error);
  EXPECT_THROW(parse_callgrind_dump("desc: Trigger: Client Request: sonde phase 0 a\n", "f"),
               Error);
}

// Callgrind names the events it counted in the dump's events line; without --simulate-wb there
// is no DLdmr or DLdmw. The write-backs were then not measured: they must be absent (with the
// reason), not a count of 0, while the events it names still give their counts.
TEST(CallgrindDump, AnEventMissingFromTheDumpIsReportedMissingNotZero) {
  const std::string text =
      "desc: Trigger: Client Request: sonde phase 0 ss\n"
      "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
      "summary: 1000 400 100 3 50 20 3 10\n";  // DLmw 0, left out as trailing zero
  const auto dump = parse_callgrind_dump(text, "f");
  ASSERT_TRUE(dump);
  EXPECT_FALSE(dump->events.count("DLdmr"));
  const auto c = counters::callgrind_counts(
      *dump, {"loads", "stores", "l1_misses", "llc_misses", "llc_writebacks", "l1_writebacks"});
  EXPECT_EQ(c.counts.at("loads"), 400);
  EXPECT_EQ(c.counts.at("stores"), 100);
  EXPECT_EQ(c.counts.at("l1_misses"), 70);
  EXPECT_EQ(c.counts.at("llc_misses"), 10);  // DLmw is named: a measured 0
  for (const char* counter : {"llc_writebacks", "l1_writebacks"}) {
    EXPECT_FALSE(c.counts.count(counter)) << counter << " written as a count";
    ASSERT_TRUE(c.missing.count(counter)) << counter << " not reported missing";
    EXPECT_NE(c.missing.at(counter).find("DLdmr"), std::string::npos) << c.missing.at(counter);
  }
  EXPECT_EQ(c.missing.size(), 2u);
}

TEST(ValgrindPasses, FollowTheProfilesCaches) {
  const auto vm = profile::read_profile(std::string(SONDE_MACHINES) + "/vm.yaml");
  const auto passes = counters::valgrind_passes(vm, "vm.yaml");
  ASSERT_EQ(passes.size(), 3u);  // three cache levels: L2, last level, L1 write-backs
  EXPECT_EQ(passes[0].ll.name, "L2");
  EXPECT_EQ(passes[1].ll.name, "L3");
  EXPECT_EQ(passes[2].ll.bytes, passes[2].d1.bytes);
  EXPECT_EQ(passes[0].d1.valgrind_option(), "49152,12,64");
  // The SGI profile has no ways (Amato et al. (1999) does not print them): a clear error naming the
  // field.
  const auto sgi = profile::read_profile(std::string(SONDE_MACHINES) + "/sgi-power-challenge.yaml");
  try {
    counters::valgrind_passes(sgi, "sgi.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory[0].ways: absent"), std::string::npos) << e.what();
  }
}

counters::CollectOptions sort_options(const std::string& name) {
  counters::CollectOptions o;
  o.command = {SONDE_SORT_PROGRAM, "--algorithm", "sample", "--size", "20000", "--threads", "2"};
  o.size = 20000;
  o.repetitions = 2;
  o.work_folder = std::filesystem::temp_directory_path() / ("sonde-collect-test-" + name);
  return o;
}

TEST(Collect, TimesOfEverySuperstepAndProcessor) {
  auto o = sort_options("time");
  o.source = counters::Source::time;
  const auto collected = counters::collect(o);
  ASSERT_EQ(collected.table.phases.size(), 5u);  // sample sort's five supersteps
  EXPECT_EQ(collected.table.phases.front().phase, "sample.ss1.sample");
  for (const auto& phase : collected.table.phases) {
    ASSERT_EQ(phase.processors.size(), 2u);
    const auto& t = phase.processors.at(1).at("time");
    EXPECT_EQ(t.source, "clock");
    EXPECT_LE(*t.low, t.value);
    EXPECT_GE(*t.high, t.value);
    EXPECT_EQ(phase.processors.at(0).count("loads"), 0u);  // no counts were asked for
  }
}

TEST(Collect, AFailingProgramOrOneWithoutMarkersIsAnError) {
  auto o = sort_options("fail");
  o.source = counters::Source::time;
  o.command = {SONDE_SORT_PROGRAM, "--algorithm", "column", "--size", "6", "--threads", "4"};
  EXPECT_THROW(counters::collect(o), Error);  // column sort refuses these sizes: exit 2
  o.command = {"true"};
  try {
    counters::collect(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no phase record"), std::string::npos) << e.what();
  }
}

TEST(Collect, ValgrindCountsEveryProcessorsPhases) {
  if (!SONDE_VALGRIND_TESTS) GTEST_SKIP() << "valgrind cannot run sanitized programs";
  auto o = sort_options("valgrind");
  o.source = counters::Source::valgrind;
  o.repetitions = 1;
  const auto vm = profile::read_profile(std::string(SONDE_MACHINES) + "/vm.yaml");
  o.machine = &vm;
  o.machine_name = "vm.yaml";
  const auto collected = counters::collect(o);
  EXPECT_EQ(collected.counts_source, "callgrind");
  const auto* fill = collected.table.find("sample.ss4.fill", 20000);
  ASSERT_TRUE(fill);
  for (const auto& [processor, counts] : fill->processors) {
    for (const std::string& counter : counters::processor_counters())
      ASSERT_TRUE(counts.count(counter)) << counter;
    // Each processor reads its 10000 keys and writes them once: at least that many accesses.
    EXPECT_GE(counts.at("loads").value, 10000);
    EXPECT_GE(counts.at("stores").value, 10000);
    EXPECT_LE(counts.at("l2_misses").value, counts.at("l1_misses").value);
    EXPECT_EQ(counts.at("loads").source, "callgrind");
  }
}

}  // namespace
