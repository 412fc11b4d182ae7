#include "core/run_records.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/result_format.hpp"

namespace sonde {
namespace {

namespace param = result_format::param;

// A result file of `suite` holding one benchmark's median, min and max aggregates.
ResultFile one_benchmark(const std::string& suite, const std::string& run,
                         const nlohmann::json& params, const std::string& counter, double median) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& [aggregate, factor] :
       std::vector<std::pair<std::string, double>>{{"median", 1.0}, {"min", 0.9}, {"max", 1.2}}) {
    benchmarks.push_back({{"name", run + "_" + aggregate},
                          {"run_name", run},
                          {"run_type", "aggregate"},
                          {"aggregate_name", aggregate},
                          {"iterations", 3},
                          {"real_time", 1.0},
                          {"cpu_time", 1.0},
                          {"time_unit", "ns"},
                          {counter, median * factor},
                          {"params", params}});
  }
  const nlohmann::json document = {
      {"context", {{"sonde", {{"suite", suite}, {"topology", {{"cores", 2}}}}}}},
      {"benchmarks", benchmarks}};
  return parse_result_json(document.dump(), suite + "-part.json");
}

nlohmann::json access_params() {
  return {{param::suite, "contention"}, {param::part, "access"},       {param::threads, 2},
          {param::stride_words, 8},     {param::level_target, "dram"}, {param::access, "store"},
          {param::sharing, "exclusive"}};
}

TEST(RunRecords, ReadsEachSuitesTypedFields) {
  const RunRecords run =
      read_run_records({one_benchmark("contention", "contention/p2.s8.dram.SE/repeats:3",
                                      access_params(), "seconds_per_access", 4e-9)});
  ASSERT_EQ(run.contention_access.size(), 1u);
  const ContentionAccessRecord& r = run.contention_access.front();
  EXPECT_EQ(r.name, "contention/p2.s8.dram.SE");
  EXPECT_EQ(r.threads, 2u);
  EXPECT_EQ(r.stride_words, 8u);
  EXPECT_EQ(r.level_target, "dram");
  EXPECT_TRUE(r.store);
  EXPECT_FALSE(r.concurrent);
  EXPECT_DOUBLE_EQ(r.median, 4e-9);
  EXPECT_DOUBLE_EQ(r.min, 0.9 * 4e-9);
  EXPECT_DOUBLE_EQ(r.max, 1.2 * 4e-9);
  EXPECT_TRUE(run.has("contention"));
  EXPECT_FALSE(run.has("memory"));
}

TEST(RunRecords, AMissingKeyIsAnErrorNamingFileBenchmarkAndKey) {
  // A renamed key must not silently become one thread.
  nlohmann::json params = access_params();
  params.erase(param::threads);
  params["thread_count"] = 2;
  try {
    read_run_records({one_benchmark("contention", "contention/p2.s8.dram.SE", params,
                                    "seconds_per_access", 4e-9)});
    FAIL() << "a missing key was read as a default";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("contention-part.json"), std::string::npos) << message;
    EXPECT_NE(message.find("contention/p2.s8.dram.SE"), std::string::npos) << message;
    EXPECT_NE(message.find("'threads'"), std::string::npos) << message;
  }
}

TEST(RunRecords, ASharedPortsRecordNeedsItsRatios) {
  const nlohmann::json params = {{param::suite, "compute"},
                                 {param::part, "shared_ports"},
                                 {param::kernel, "shared_ports"},
                                 {param::width_doubles, 32}};
  // The headline is there, the ratios the fit needs are not.
  try {
    read_run_records({one_benchmark("compute", "compute.shared_ports/width:32", params,
                                    "seconds_per_operation", 4e-9)});
    FAIL() << "a shared-ports record without its ratios was read";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("compute-part.json"), std::string::npos) << message;
    EXPECT_NE(message.find("compute.shared_ports/width:32"), std::string::npos) << message;
    EXPECT_NE(message.find("no counter chain_over_stream"), std::string::npos) << message;
  }
}

TEST(RunRecords, AKeyOfTheWrongTypeIsAnError) {
  nlohmann::json params = access_params();
  params[param::threads] = "2";
  EXPECT_THROW(
      read_run_records({one_benchmark("contention", "c/x", params, "seconds_per_access", 1e-9)}),
      Error);
  params[param::threads] = -2;
  EXPECT_THROW(
      read_run_records({one_benchmark("contention", "c/x", params, "seconds_per_access", 1e-9)}),
      Error);
  params = access_params();
  params[param::access] = "write";
  EXPECT_THROW(
      read_run_records({one_benchmark("contention", "c/x", params, "seconds_per_access", 1e-9)}),
      Error);
}

TEST(RunRecords, ALineGatherKeepsItsShapeAndAnUnknownShapeIsAnError) {
  nlohmann::json params = {{param::suite, "memory"},
                           {param::part, result_format::part::gather},
                           {param::kernel, "line_gather"},
                           {"shape", "copy"},
                           {param::threads, 1},
                           {param::working_set_bytes, 134217728},
                           {"span_bytes", 16384}};
  const auto read = [&](const nlohmann::json& p) {
    return read_run_records(
        {one_benchmark("memory", "memory.gather.copy/threads:1", p, "seconds_per_load", 6e-9)});
  };
  const RunRecords copy = read(params);
  ASSERT_EQ(copy.line_gathers.size(), 1u);
  EXPECT_EQ(copy.line_gathers[0].shape, "copy");
  EXPECT_EQ(copy.line_gathers[0].span_bytes, 16384u);
  EXPECT_DOUBLE_EQ(copy.line_gathers[0].median, 6e-9);
  // The first gathers wrote no shape: they were the sum.
  params.erase("shape");
  EXPECT_EQ(read(params).line_gathers[0].shape, "sum");
  params["shape"] = "scatter";
  try {
    read(params);
    FAIL() << "an unknown shape was read";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("memory-part.json"), std::string::npos) << message;
    EXPECT_NE(message.find("params.shape is 'scatter'; expected sum or copy"), std::string::npos)
        << message;
  }
}

TEST(RunRecords, AnUnknownSuiteIsAnError) {
  EXPECT_THROW(read_run_records(
                   {one_benchmark("cache", "c/x", access_params(), "seconds_per_access", 1e-9)}),
               Error);
}

TEST(RunRecords, TheLatencyProbeAloneIsNotTheMemorySuite) {
  ResultFile probe = one_benchmark("memory", "memory.probe/ws:4096",
                                   {{param::suite, "memory"},
                                    {param::part, "probe"},
                                    {param::kernel, "latency_probe"},
                                    {param::pattern, "random"},
                                    {param::page_policy, "base"},
                                    {param::working_set_bytes, 4096},
                                    {param::threads, 1}},
                                   "seconds_per_load", 1e-9);
  probe.context["sonde"]["memory_suite"] = {{"parts", {"probe"}}};
  const RunRecords run = read_run_records({probe});
  EXPECT_FALSE(run.has("memory"));
  ASSERT_EQ(run.latency.size(), 1u);
  EXPECT_EQ(run.latency.front().part, "probe");
  EXPECT_EQ(run.latency.front().working_set_bytes, 4096u);
}

TEST(RunRecords, APingPongIsBetweenTwoRanks) {
  const nlohmann::json params = {{param::suite, "mpi"},
                                 {param::part, "pingpong"},
                                 {param::message_bytes, 1024},
                                 {param::ranks, {0, 1, 2}}};
  EXPECT_THROW(read_run_records({one_benchmark("mpi", "mpi.pingpong/bytes:1024", params,
                                               "seconds_per_message", 1e-6)}),
               Error);
}

}  // namespace
}  // namespace sonde
