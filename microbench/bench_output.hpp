// Running the registered Google Benchmark benchmarks of a sonde program and writing their results:
// one place for reporting, shared by every benchmark program. The file is Google Benchmark's JSON
// with the run context under context.sonde and each benchmark's parameters under "params"; it is
// written atomically, only once every benchmark has run.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonde::microbench {

// The parameters of every registered benchmark, by the name it was registered under.
class ParamRegistry {
 public:
  void add(const std::string& name, nlohmann::json params);
  const nlohmann::json* find(const std::string& name) const;
  std::size_t size() const { return params_.size(); }

 private:
  std::map<std::string, nlohmann::json> params_;
};

struct OutputOptions {
  std::optional<std::filesystem::path> out;  // the result file; none: only the screen
  bool progress = false;  // one line per benchmark on stderr instead of the console table
  bool quiet = false;     // neither screen nor file: an MPI rank other than 0
  // The counters to show on a progress line, the first one a benchmark has.
  std::vector<std::string> headline_counters{"seconds_per_load", "bytes_per_second"};
};

struct RunOutcome {
  std::size_t benchmarks = 0;  // benchmark instances run
  std::size_t failed = 0;      // of which reported an error
};

RunOutcome run_benchmarks(const ParamRegistry& registry, const nlohmann::json& context,
                          const OutputOptions& options);

}  // namespace sonde::microbench
