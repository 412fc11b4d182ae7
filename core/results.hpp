// The raw result format: Google Benchmark's JSON, as sonde's benchmark programs write it, with
// two additions: a "sonde" object in the context (the run context: topology, clock, compiler) and
// a "params" object in each benchmark entry (its parameters as data, so that nobody parses names).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonde {

struct BenchmarkRecord {
  std::string name;            // the full Google Benchmark name, with its suffixes
  std::string run_name;        // shared by the repetitions of one benchmark and their aggregates
  std::string run_type;        // "iteration" or "aggregate"
  std::string aggregate_name;  // "mean", "median", "stddev", "cv" for aggregates, else empty
  int repetition_index = -1;   // for iterations; -1 for aggregates
  int repetitions = 0;         // how many the benchmark was to run (0: not said)
  std::int64_t iterations = 0;
  double real_time = 0;  // per iteration, in `time_unit`
  double cpu_time = 0;
  std::string time_unit;
  std::map<std::string, double>
      counters;               // every numeric field that Google Benchmark did not define
  nlohmann::json params;      // the parameters sonde registered, or null
  std::string error_message;  // non-empty when the benchmark failed

  // The counter, or nullopt when the benchmark did not record it.
  std::optional<double> counter(const std::string& name) const;
};

struct ResultFile {
  std::filesystem::path path;
  nlohmann::json context;
  std::vector<BenchmarkRecord> benchmarks;
  // Read from an interrupted part's <part>.unfinished.json (read_result_folder's
  // with_unfinished): its whole benchmarks alone, and how many those are.
  bool unfinished = false;
  std::size_t whole_benchmarks = 0;
  // An unfinished file written before they carried the run's context (2026-11-27) takes it from a
  // whole file of the same suite in the folder (the same program and launcher, another part):
  // that file's name, else empty.
  std::string context_from;

  // The "sonde" object of the context; throws an input Error naming the file when absent.
  const nlohmann::json& sonde_context() const;
};

// Reads one result file; a malformed file is an input Error naming the file and the entry.
ResultFile read_result_file(const std::filesystem::path& path);
ResultFile parse_result_json(const std::string& text, const std::string& where);

// Reads every *.json result file of a run folder (not the run manifest), sorted by name. With
// `with_unfinished`, an interrupted part's <part>.unfinished.json stands in for its missing
// <part>.json, with the benchmarks it finished whole (every repetition and their aggregates).
std::vector<ResultFile> read_result_folder(const std::filesystem::path& folder,
                                           bool with_unfinished = false);

}  // namespace sonde
