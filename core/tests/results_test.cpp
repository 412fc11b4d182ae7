#include "core/results.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace sonde {
namespace {

constexpr const char* kSample = R"({
  "context": {"date": "2026-11-21", "sonde": {"suite": "memory"}},
  "benchmarks": [
    {"name": "memory.latency/ws:4096/repeats:2/real_time", "run_name": "memory.latency/ws:4096/repeats:2/real_time",
     "run_type": "iteration", "repetitions": 2, "repetition_index": 0, "threads": 1,
     "iterations": 100, "real_time": 1.5, "cpu_time": 1.5, "time_unit": "us",
     "seconds_per_load": 1.1e-9, "params": {"kernel": "latency", "working_set_bytes": 4096}},
    {"name": "memory.latency/ws:4096/repeats:2/real_time_median", "run_name": "memory.latency/ws:4096/repeats:2/real_time",
     "run_type": "aggregate", "aggregate_name": "median", "aggregate_unit": "time",
     "repetitions": 2, "threads": 1, "iterations": 2, "real_time": 1.4, "cpu_time": 1.4,
     "time_unit": "us", "seconds_per_load": 1.0e-9, "params": {"kernel": "latency", "working_set_bytes": 4096}},
    {"name": "broken", "run_name": "broken", "run_type": "iteration", "error_occurred": true,
     "error_message": "kernel result wrong"}
  ]
})";

TEST(Results, ReadsCountersAndParams) {
  const ResultFile file = parse_result_json(kSample, "sample.json");
  ASSERT_EQ(file.benchmarks.size(), 3u);
  const BenchmarkRecord& first = file.benchmarks[0];
  EXPECT_EQ(first.run_type, "iteration");
  EXPECT_EQ(first.iterations, 100);
  EXPECT_DOUBLE_EQ(*first.counter("seconds_per_load"), 1.1e-9);
  EXPECT_FALSE(first.counter("repetitions").has_value()) << "a standard field is no counter";
  EXPECT_EQ(first.params["working_set_bytes"], 4096);
  EXPECT_EQ(file.benchmarks[1].aggregate_name, "median");
  EXPECT_EQ(file.benchmarks[2].error_message, "kernel result wrong");
  EXPECT_EQ(file.sonde_context()["suite"], "memory");
}

TEST(Results, AFolderReadsItsResultsAloneNotTheRunsOtherFiles) {
  // A run folder holds the manifest, the sizing, and parts set aside because they failed: none of
  // them is a result, and a part set aside must not reach a profile.
  const auto folder = std::filesystem::temp_directory_path() /
                      ("sonde-results-folder-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  for (const char* name : {"memory-latency.json", "contention-access.failed.json"}) {
    std::ofstream(folder / name) << kSample;
  }
  std::ofstream(folder / "run.json") << R"({"complete": true})";
  std::ofstream(folder / "sizing.json") << R"({"levels": []})";
  std::ofstream(folder / "sizing-before-probe.json") << R"({"levels": []})";
  const std::vector<ResultFile> files = read_result_folder(folder);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path.filename(), "memory-latency.json");
  std::filesystem::remove_all(folder);
}

TEST(Results, MalformedFilesNameTheFileAndEntry) {
  try {
    parse_result_json("{\"benchmarks\": [", "broken.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  try {
    parse_result_json(R"({"benchmarks": [{"name": "x", "iterations": 1, "real_time": "fast",
                          "cpu_time": 1, "time_unit": "ns"}]})",
                      "typed.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("typed.json: benchmarks[0]"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("real_time"), std::string::npos);
  }
  EXPECT_THROW(parse_result_json(R"({"context": {}})", "nobench.json"), Error);
  const ResultFile foreign = parse_result_json(R"({"context": {}, "benchmarks": []})", "gb.json");
  EXPECT_THROW(foreign.sonde_context(), Error);
}

}  // namespace
}  // namespace sonde
