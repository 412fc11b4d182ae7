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

TEST(Results, APartSetAsideAsFailedIsNeverReadBesideItsRemeasurement) {
  // characterize sets a failed part aside as <part>.failed.json; --resume measures it again into
  // <part>.json. Only the new measurement is a result: the failed one reaches no fit, no digest.
  const auto folder = std::filesystem::temp_directory_path() /
                      ("sonde-results-resumed-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::string failed = kSample;
  failed.replace(failed.find("1.1e-9"), 6, "9.9e-9");
  std::ofstream(folder / "memory-x.failed.json") << failed;
  std::ofstream(folder / "memory-x.json") << kSample;
  // Nor is what an interrupted part had finished, kept for --resume.
  std::ofstream(folder / "memory-y.unfinished.json") << failed;
  const std::vector<ResultFile> files = read_result_folder(folder);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path.filename(), "memory-x.json");
  EXPECT_EQ(files[0].benchmarks[0].counter("seconds_per_load"), 1.1e-9);
  // The failed part alone (not yet measured again): nothing to read.
  std::filesystem::remove(folder / "memory-x.json");
  EXPECT_TRUE(read_result_folder(folder).empty());
  std::filesystem::remove_all(folder);
}

// sonde fit --unfinished: an interrupted part's unfinished file stands in for its missing file,
// with only the benchmarks it finished whole. One finished whole (its repetitions and median),
// one had run one of its two repetitions (no aggregate yet), one failed. A part that has its whole
// file keeps it, and its stale unfinished file is not read.
TEST(Results, AnInterruptedPartsWholeBenchmarksStandInForItsFileWhenAsked) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("sonde-results-unfinished-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const auto entry = [](const std::string& run, const std::string& type, int index) {
    return "{\"name\": \"" + run + (type == "aggregate" ? "_median" : "") + "\", \"run_name\": \"" +
           run + "\", \"run_type\": \"" + type +
           "\", \"repetitions\": 2, \"repetition_index\": " + std::to_string(index) +
           R"(, "iterations": 10, "real_time": 2.5, "cpu_time": 2.5, "time_unit": "us"})";
  };
  const std::string whole = "mpi.collective.bcast/ranks:2/bytes:8";
  const std::string half = "mpi.collective.bcast/ranks:2/bytes:64";
  const std::string unfinished =
      R"({"context": {"sonde": {"suite": "mpi"}}, "benchmarks": [)" + entry(whole, "iteration", 0) +
      "," + entry(whole, "iteration", 1) + "," + entry(whole, "aggregate", -1) + "," +
      entry(half, "iteration", 0) + "," +
      R"({"name": "broken", "run_name": "broken", "run_type": "iteration", "error_occurred": true}]})";
  std::ofstream(folder / "mpi-collectives.unfinished.json") << unfinished;
  std::ofstream(folder / "memory-x.json") << kSample;
  std::ofstream(folder / "memory-x.unfinished.json") << unfinished;
  ASSERT_EQ(read_result_folder(folder).size(), 1u);  // not asked: the whole files alone
  const std::vector<ResultFile> files = read_result_folder(folder, true);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path.filename(), "memory-x.json");
  EXPECT_FALSE(files[0].unfinished);
  EXPECT_EQ(files[0].benchmarks.size(), 3u);
  EXPECT_EQ(files[1].path.filename(), "mpi-collectives.unfinished.json");
  EXPECT_TRUE(files[1].unfinished);
  EXPECT_EQ(files[1].whole_benchmarks, 1u);
  ASSERT_EQ(files[1].benchmarks.size(), 3u);  // the whole one's two repetitions and median
  for (const BenchmarkRecord& record : files[1].benchmarks) EXPECT_EQ(record.run_name, whole);
  EXPECT_TRUE(files[1].context_from.empty());
  // Written before unfinished files carried the run's context: a whole file of the same suite
  // lends its own, less what belongs to its part alone (its noise).
  std::string without = unfinished;
  without.replace(without.find(R"("sonde": {"suite": "mpi"})"), 25, R"("sonde_suite": "mpi")");
  std::ofstream(folder / "mpi-collectives.unfinished.json") << without;
  std::ofstream(folder / "mpi-pingpong.json")
      << R"({"context": {"sonde_suite": "mpi", "sonde": {"suite": "mpi", "mpi": {"ranks": 2},
             "noise": {"noisy": []}}}, "benchmarks": []})";
  const std::vector<ResultFile> lent = read_result_folder(folder, true);
  ASSERT_EQ(lent.size(), 3u);
  EXPECT_EQ(lent[1].context_from, "mpi-pingpong.json");
  EXPECT_EQ(lent[1].sonde_context()["mpi"]["ranks"], 2);
  EXPECT_FALSE(lent[1].sonde_context().contains("noise"));
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

// What fuzzing found (fuzz/regressions/results): a number beyond a double's range and fields of
// the wrong type escaped as nlohmann's exceptions, not naming the file; fractional or negative
// counts and negative times were read as if valid.
TEST(Results, FieldsOutOfRangeOrOfTheWrongTypeNameTheEntry) {
  const auto message = [](const std::string& entry) -> std::string {
    try {
      parse_result_json(R"({"benchmarks": [)" + entry + "]}", "bad.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      return e.what();
    }
    return "accepted";
  };
  const std::string times = R"("real_time": 1, "cpu_time": 1, "time_unit": "ns")";
  EXPECT_NE(message(R"({"name": "x", "iterations": 1, "real_time": 4.2e0602, "cpu_time": 1,
                        "time_unit": "ns"})")
                .find("bad.json: is not valid JSON: [json.exception.out_of_range.406] number "
                      "overflow"),
            std::string::npos);
  EXPECT_EQ(message(R"({"name": "x", "run_name": 5, "iterations": 1, )" + times + "}"),
            "bad.json: benchmarks[0]: field 'run_name' has the wrong type (number)");
  EXPECT_EQ(message(R"({"name": "x", "error_occurred": "yes"})"),
            "bad.json: benchmarks[0]: field 'error_occurred' has the wrong type (string)");
  EXPECT_EQ(message(R"({"name": "x", "iterations": 2.5, )" + times + "}"),
            "bad.json: benchmarks[0]: field 'iterations' has the wrong type (number); expected a "
            "whole number");
  EXPECT_EQ(message(R"({"name": "x", "iterations": -1, )" + times + "}"),
            "bad.json: benchmarks[0]: field 'iterations' is -1; expected a whole number >= 0");
  EXPECT_EQ(
      message(R"({"name": "x", "repetition_index": 10000000000, "iterations": 1, )" + times + "}"),
      "bad.json: benchmarks[0]: field 'repetition_index' is 10000000000: out of range");
  EXPECT_EQ(message(R"({"name": "x", "iterations": 1, "real_time": -1, "cpu_time": 1,
                        "time_unit": "ns"})"),
            "bad.json: benchmarks[0]: field 'real_time' is -1; expected a value >= 0");
  // A failed entry needs no times; Google Benchmark may leave its message empty.
  const ResultFile failed =
      parse_result_json(R"({"benchmarks": [{"name": "x", "error_occurred": true,
                                            "error_message": ""}]})",
                        "failed.json");
  EXPECT_EQ(failed.benchmarks.at(0).error_message, "failed without a message");
}

}  // namespace
}  // namespace sonde
