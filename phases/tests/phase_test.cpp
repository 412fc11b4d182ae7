// The phase markers, through a program that marks phases run with and without collection.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/program.hpp"

namespace {

namespace fs = std::filesystem;

// Runs the marking program with `environment`; returns the records it left under `folder`.
std::vector<nlohmann::json> run(const std::string& which,
                                const std::vector<std::string>& environment,
                                const fs::path& folder) {
  fs::remove_all(folder);
  fs::create_directories(folder);
  const auto exit = sonde::run_child({SONDE_PHASE_PROGRAM, which}, environment);
  EXPECT_TRUE(exit.ok());
  std::vector<nlohmann::json> records;
  for (const auto& entry : fs::directory_iterator(folder))
    records.push_back(nlohmann::json::parse(sonde::read_file(entry.path())));
  return records;
}

// A folder of its own per test: CTest runs the tests in parallel.
fs::path folder_of_this_test() {
  return fs::temp_directory_path() / "sonde-phase-test" /
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

TEST(Phase, WritesNothingWhenNotCollecting) {
  // The markers are off without a record path, and on with one.
  EXPECT_EQ(sonde::run_child({SONDE_PHASE_PROGRAM, "report"}, {"SONDE_PHASE_RECORD="}).code, 0);
  EXPECT_EQ(sonde::run_child({SONDE_PHASE_PROGRAM, "report"},
                             {"SONDE_PHASE_RECORD=" + (folder_of_this_test() / "r").string()})
                .code,
            3);
  EXPECT_TRUE(run("threads", {"SONDE_PHASE_RECORD="}, folder_of_this_test()).empty());
}

TEST(Phase, RecordsEveryThreadsPhasesAndTimes) {
  const auto records =
      run("threads", {"SONDE_PHASE_RECORD=" + (folder_of_this_test() / "r").string()},
          folder_of_this_test());
  ASSERT_EQ(records.size(), 1u);
  const auto& r = records.front();
  EXPECT_EQ(r["mode"], "time");
  EXPECT_TRUE(r["errors"].empty()) << r["errors"];
  ASSERT_EQ(r["threads"].size(), 2u);
  int with_c = 0;
  for (const auto& thread : r["threads"]) {
    std::map<std::string, nlohmann::json> phases;
    for (const auto& p : thread["phases"]) phases[p["name"]] = p;
    EXPECT_EQ(phases.at("work")["occurrences"], 2);  // summed over its occurrences
    EXPECT_EQ(phases.at("sum")["occurrences"], 1);
    EXPECT_GT(phases.at("work")["seconds"].get<double>(), 0.0);
    EXPECT_FALSE(phases.at("work").contains("counts"));  // time mode counts nothing
    with_c += phases.count("c.loop");
  }
  EXPECT_EQ(with_c, 1);
}

TEST(Phase, NestingAndUnendedPhasesAreReported) {
  const std::string record = "SONDE_PHASE_RECORD=" + (folder_of_this_test() / "r").string();
  auto records = run("nested", {record}, folder_of_this_test());
  ASSERT_EQ(records.size(), 1u);
  ASSERT_FALSE(records.front()["errors"].empty());
  EXPECT_NE(records.front()["errors"][0].get<std::string>().find("do not nest"), std::string::npos);
  records = run("unended", {record}, folder_of_this_test());
  ASSERT_EQ(records.size(), 1u);
  ASSERT_FALSE(records.front()["errors"].empty());
  EXPECT_NE(records.front()["errors"][0].get<std::string>().find("never ended"), std::string::npos);
}

TEST(Phase, PapiModeWithoutEventsStillRecordsTimes) {
  // An event no machine has: the record names the failure and keeps the times.
  const auto records = run("threads",
                           {"SONDE_PHASE_RECORD=" + (folder_of_this_test() / "r").string(),
                            "SONDE_PHASE_MODE=papi", "SONDE_PHASE_PAPI_EVENTS=loads=sonde::none"},
                           folder_of_this_test());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records.front()["errors"].empty());
  EXPECT_EQ(records.front()["threads"].size(), 2u);
}

}  // namespace
