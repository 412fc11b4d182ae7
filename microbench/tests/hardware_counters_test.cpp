// The derived-count model on patterns whose counts are known by hand, the choice of PAPI events,
// and the process's counters on whatever machine the test runs on.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "microbench/derived_counts.hpp"
#include "microbench/hardware_counters.hpp"

namespace sonde::microbench {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;
constexpr std::uint64_t kPage = 4096;

// A Zen-like core: L1d 48 KiB 12-way (64 sets: its index lies within a 4 KiB page), L2 1 MiB
// 16-way, L3 32 MiB shared by 8 cores.
std::vector<CacheGeometry> zen() {
  return {{1, 48 * KiB, 64, 12, 1}, {2, 1 * MiB, 64, 16, 1}, {3, 32 * MiB, 64, 16, 8}};
}

AccessPattern sweep(std::uint64_t bytes, std::uint64_t stride, bool store = false,
                    unsigned threads = 1, bool shared = false) {
  return {{{bytes, stride, store, false}}, threads, shared};
}

TEST(DerivedCounts, SweepThatFitsInL1MissesNothing) {
  const DerivedCounts c = derive_counts(sweep(24 * KiB, 8), zen(), kPage);
  EXPECT_EQ(c.loads, 1);
  EXPECT_EQ(c.stores, 0);
  EXPECT_EQ(c.misses, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(c.writebacks, (std::vector<double>{0, 0, 0}));
}

TEST(DerivedCounts, UnitStrideBeyondL1MissesOncePerLine) {
  // 512 KiB of words: L1 cannot hold it, L2 can; one miss per eight 8-byte words.
  const DerivedCounts c = derive_counts(sweep(512 * KiB, 8), zen(), kPage);
  EXPECT_DOUBLE_EQ(c.misses[0], 1.0 / 8);
  EXPECT_EQ(c.misses[1], 0);
  EXPECT_EQ(c.misses[2], 0);
}

TEST(DerivedCounts, LineStrideBeyondEveryLevelMissesEverywhere) {
  // Amato et al.'s (1999) p1.s8 in DRAM: every access a new line, nothing held anywhere.
  const DerivedCounts c = derive_counts(sweep(256 * MiB, 64), zen(), kPage);
  EXPECT_EQ(c.misses, (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(c.writebacks, (std::vector<double>{0, 0, 0}));  // loads leave clean lines
}

TEST(DerivedCounts, StoresWriteBackEveryLineTheyMiss) {
  const DerivedCounts c = derive_counts(sweep(512 * KiB, 16, true), zen(), kPage);
  EXPECT_EQ(c.stores, 1);
  EXPECT_DOUBLE_EQ(c.misses[0], 0.25);  // four stores per 64-byte line
  EXPECT_DOUBLE_EQ(c.writebacks[0], 0.25);
  EXPECT_EQ(c.writebacks[1], 0);  // L2 keeps the dirty lines
  const DerivedCounts dram = derive_counts(sweep(256 * MiB, 8, true), zen(), kPage);
  EXPECT_DOUBLE_EQ(dram.writebacks[2], 1.0 / 8);  // to memory
}

TEST(DerivedCounts, AnUpdateInPlaceMissesOnlyWhereItsLoadsDo) {
  // a[i] += s b[i] over two 384 KiB arrays (768 KiB: beyond L1, within L2): a's load and b's miss
  // once a line each in L1, the store into a's line misses nowhere and writes back what a's load
  // stream lets go. Three separate streams would have counted 1152 KiB, beyond L2.
  const AccessPattern update{{{384 * KiB, 8, false, false},
                              {384 * KiB, 8, true, false, true},
                              {384 * KiB, 8, false, false}},
                             1,
                             false};
  const DerivedCounts c = derive_counts(update, zen(), kPage);
  EXPECT_EQ(c.loads, 2);
  EXPECT_EQ(c.stores, 1);
  EXPECT_DOUBLE_EQ(c.misses[0], 2.0 / 8);
  EXPECT_DOUBLE_EQ(c.writebacks[0], 1.0 / 8);
  EXPECT_EQ(c.misses[1], 0);
  EXPECT_EQ(c.writebacks[1], 0);
}

TEST(DerivedCounts, PageStrideFallsIntoOneSetOfL1) {
  // A 4 KiB stride maps every access to one of L1's 64 sets: 12 ways hold 12 lines. Twelve
  // accesses fit; sixteen (64 KiB) miss every time though they are 16 lines of 768.
  EXPECT_EQ(derive_counts(sweep(48 * KiB, 4096), zen(), kPage).misses[0], 0);
  const DerivedCounts c = derive_counts(sweep(64 * KiB, 4096), zen(), kPage);
  EXPECT_EQ(c.misses[0], 1);
  EXPECT_EQ(c.misses[1], 0);  // L2's sets lie beyond the page: physical pages spread them
  // 2 KiB stride: two sets, 24 lines.
  EXPECT_EQ(derive_counts(sweep(48 * KiB, 2048), zen(), kPage).misses[0], 0);
  EXPECT_EQ(derive_counts(sweep(64 * KiB, 2048), zen(), kPage).misses[0], 1);
}

TEST(DerivedCounts, ThreadsSharingALevelShareItsCapacity) {
  // Two threads, 24 MiB each, L3 of 32 MiB shared: exclusive sub-arrays (48 MiB) miss it, one
  // concurrent array fits.
  const DerivedCounts exclusive = derive_counts(sweep(24 * MiB, 64, false, 2, false), zen(), kPage);
  const DerivedCounts concurrent = derive_counts(sweep(24 * MiB, 64, false, 2, true), zen(), kPage);
  EXPECT_EQ(exclusive.misses[2], 1);
  EXPECT_EQ(concurrent.misses[2], 0);
  EXPECT_EQ(concurrent.misses[1], 1);  // private L2s hold neither
}

TEST(DerivedCounts, RandomChaseIsOneAccessPerLine) {
  const AccessPattern chase{{{4 * MiB, 64, false, true}}, 1, false};
  const DerivedCounts c = derive_counts(chase, zen(), kPage);
  EXPECT_EQ(c.misses, (std::vector<double>{1, 1, 0}));
}

TEST(DerivedCounts, StreamsShareTheCapacity) {
  // Triad: two loads and a store of 16 KiB each per thread: 48 KiB in a 48 KiB L1 fits exactly;
  // at 20 KiB each (60 KiB) it does not, and only the stored stream writes back.
  const auto triad = [](std::uint64_t bytes) {
    return AccessPattern{
        {{bytes, 8, false, false}, {bytes, 8, false, false}, {bytes, 8, true, false}}, 1, false};
  };
  EXPECT_EQ(derive_counts(triad(16 * KiB), zen(), kPage).misses[0], 0);
  const DerivedCounts c = derive_counts(triad(20 * KiB), zen(), kPage);
  EXPECT_EQ(c.loads, 2);
  EXPECT_EQ(c.stores, 1);
  EXPECT_DOUBLE_EQ(c.misses[0], 3.0 / 8);
  EXPECT_DOUBLE_EQ(c.writebacks[0], 1.0 / 8);
}

TEST(DerivedCounts, AnOuterLevelNeverMissesMoreThanAnInnerOne) {
  // A small outer level (an odd geometry, as hwloc may report in a VM): what L1 holds never
  // reaches it.
  const std::vector<CacheGeometry> odd = {{1, 64 * KiB, 64, 8, 1}, {2, 32 * KiB, 64, 8, 1}};
  EXPECT_EQ(derive_counts(sweep(48 * KiB, 8), odd, kPage).misses[1], 0);
}

TEST(DerivedCounts, MapsLevelsToAmatoKinds) {
  const std::vector<CacheGeometry> two = {{1, 32 * KiB, 64, 8, 1}, {2, 4 * MiB, 64, 16, 4}};
  const Counts counts = to_counts(derive_counts(sweep(64 * MiB, 8, true), two, kPage));
  const auto at = [&](CountKind kind) { return counts[static_cast<std::size_t>(kind)]; };
  EXPECT_EQ(at(CountKind::stores), 1.0);
  EXPECT_EQ(at(CountKind::l2_misses), 1.0 / 8);
  EXPECT_EQ(at(CountKind::llc_misses), 1.0 / 8);  // two levels: the last level is L2
  EXPECT_EQ(at(CountKind::llc_writebacks), 1.0 / 8);
  const Counts one = to_counts(derive_counts(sweep(64 * MiB, 8), {two[0]}, kPage));
  EXPECT_FALSE(one[static_cast<std::size_t>(CountKind::l2_misses)].has_value());  // no L2: none
}

TEST(DerivedCounts, RefusesPatternsWithoutMeaning) {
  EXPECT_THROW(derive_counts({{}, 1, false}, zen(), kPage), Error);
  EXPECT_THROW(derive_counts(sweep(0, 8), zen(), kPage), Error);
  EXPECT_THROW(derive_counts(sweep(64, 0), zen(), kPage), Error);
  EXPECT_THROW(derive_counts(sweep(64, 8), {}, kPage), Error);
}

TEST(CountKinds, NamesRoundTrip) {
  for (CountKind kind : all_count_kinds()) EXPECT_EQ(count_kind_named(name_of(kind)), kind);
  EXPECT_FALSE(count_kind_named("cycles").has_value());
}

TEST(EventChoice, TakesTheFirstEventTheMachineHas) {
  const std::set<std::string> here = {"PAPI_LD_INS", "PAPI_L2_TCM", "ls_dispatch:store_dispatch"};
  const auto choices = choose_events({}, [&](const std::string& event) -> std::string {
    return here.count(event) != 0 ? "" : "Event does not exist";
  });
  ASSERT_EQ(choices.size(), kCountKinds);
  const auto choice = [&](CountKind kind) { return choices[static_cast<std::size_t>(kind)]; };
  EXPECT_EQ(choice(CountKind::loads).event, "PAPI_LD_INS");
  EXPECT_EQ(choice(CountKind::stores).event, "ls_dispatch:store_dispatch");
  EXPECT_EQ(choice(CountKind::l2_misses).event, "PAPI_L2_TCM");
  // A kind without an event is missing, with every refusal named.
  EXPECT_TRUE(choice(CountKind::l1_misses).event.empty());
  EXPECT_NE(choice(CountKind::l1_misses).missing_reason.find("PAPI_L1_DCM: Event does not exist"),
            std::string::npos);
}

TEST(EventChoice, OverridesReplaceAKindsCandidates) {
  std::vector<std::string> tried;
  const auto choices = choose_events({"llc_misses=perf::LLC-LOAD-MISSES", "loads=my_event"},
                                     [&](const std::string& event) {
                                       tried.push_back(event);
                                       return event == "PAPI_LD_INS" ? "" : "Not supported";
                                     });
  EXPECT_TRUE(choices[static_cast<std::size_t>(CountKind::loads)].event.empty());
  EXPECT_EQ(choices[static_cast<std::size_t>(CountKind::loads)].missing_reason,
            "my_event: Not supported");
  EXPECT_EQ(std::count(tried.begin(), tried.end(), "PAPI_LD_INS"), 0);
  EXPECT_EQ(std::count(tried.begin(), tried.end(), "PAPI_L3_TCM"), 0);
}

TEST(EventChoice, MalformedOverridesAreUsageErrors) {
  const auto none = [](const std::string&) { return std::string(); };
  for (const char* bad : {"loads", "=PAPI_LD_INS", "loads=", "cycles=PAPI_TOT_CYC"}) {
    try {
      choose_events({bad}, none);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("--papi-event"), std::string::npos) << e.what();
    }
  }
}

TEST(HardwareCounters, EveryKindIsCountedOrMissingOnThisMachine) {
  HardwareCounters::open({"loads=sonde::no_such_event"});
  const HardwareCounters& counters = HardwareCounters::get();
  const nlohmann::json json = counters.to_json();
  for (CountKind kind : all_count_kinds()) {
    const std::string name(name_of(kind));
    EXPECT_NE(json["events"].contains(name), json["missing"].contains(name)) << name;
  }
  EXPECT_NE(json["missing"]["loads"].get<std::string>().find("sonde::no_such_event"),
            std::string::npos);
  if (!counters.active()) {
    EXPECT_NE(counters.status().find("derived"), std::string::npos);
  }
  // Counting on an inactive set, or a real one, never throws and never fails on this thread.
  ScopedCounting counting;
  volatile double sink = 0;
  for (int i = 0; i < 1000; ++i) sink = sink + i;
  EXPECT_FALSE(counting.stop().failed);
}

TEST(HardwareCounters, TheRunContextSaysWhetherPapiIsBuiltIn) {
  HardwareCounters::open({"loads=sonde::no_such_event"});
  const HardwareCounters& counters = HardwareCounters::get();
  const nlohmann::json json = counters.to_json();
  EXPECT_EQ(json["papi_built_in"], bool(SONDE_HAVE_PAPI));
  EXPECT_EQ(papi_built_in(), bool(SONDE_HAVE_PAPI));
#if !SONDE_HAVE_PAPI
  // Without PAPI nothing counts, and every kind is missing for that reason, never zero.
  EXPECT_FALSE(counters.active());
  EXPECT_EQ(json["measured"], "none");
  EXPECT_TRUE(json["events"].empty());
  for (CountKind kind : all_count_kinds()) {
    const std::string why = json["missing"][std::string(name_of(kind))].get<std::string>();
    EXPECT_EQ(why.rfind("built without PAPI", 0), 0u) << why;
  }
  EXPECT_NE(json["why_not_measured"].get<std::string>().find("built without PAPI"),
            std::string::npos);
  EXPECT_NE(counters.status().find("built without PAPI"), std::string::npos);
  // --papi-event was checked and says it has no effect.
  EXPECT_NE(json["missing"]["loads"].get<std::string>().find("--papi-event"), std::string::npos);
  EXPECT_NE(counters.status().find("--papi-event has no effect"), std::string::npos);
  EventTotals totals;
  counters.start();
  counters.stop(totals);
  EXPECT_FALSE(totals.failed);
  EXPECT_EQ(totals.values, EventTotals{}.values);
#else
  EXPECT_EQ(counters.status().find("built without PAPI"), std::string::npos);
#endif
}

}  // namespace
}  // namespace sonde::microbench
