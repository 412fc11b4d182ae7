// Running the registered Google Benchmark benchmarks of a sonde program and writing their results:
// one place for reporting, shared by every benchmark program. The file is Google Benchmark's JSON
// with the run context under context.sonde and each benchmark's parameters under "params"; it is
// written atomically, only once every benchmark has run. While the run goes on, the benchmarks
// measured so far stand in an unfinished file beside it, which a run that resumes keeps.
//
// Shared VMs are noisy: a benchmark whose repetitions spread more than a threshold (their
// coefficient of variation) is measured again, a bounded number of times, and the file keeps the
// first attempt within the threshold, else the least spread one; its entries say so under "noise",
// and context.sonde.noise sums up what was measured again and what stayed noisy.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
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
  const std::map<std::string, nlohmann::json>& all() const { return params_; }

 private:
  std::map<std::string, nlohmann::json> params_;
};

struct OutputOptions {
  std::optional<std::filesystem::path> out;  // the result file; none: only the screen
  bool progress = false;  // one line per benchmark on stderr instead of the console table
  bool quiet = false;     // neither screen nor file: an MPI rank other than 0
  // The counters to show on a progress line, the first one a benchmark has.
  std::vector<std::string> headline_counters{"seconds_per_load", "bytes_per_second"};
  // The coefficient of variation of a benchmark's repetitions (of their real time, the manual
  // time where the benchmark sets it) above which it is measured again; 0: never.
  double noise_cv = 0.05;
  int remeasure = 2;  // how many times at most a noisy benchmark is measured again
  // Where several processes run the benchmarks together (MPI ranks), they must run the same
  // passes: given the filter of the next pass on the reporting process ("" on the others; ""
  // there: no further pass), returns the one every process runs ("": stop).
  std::function<std::string(const std::string&)> agree;
  // Where several processes run together: the reporting process's text on every process (the
  // others pass ""). A resumed run's filter of what to leave out goes through it.
  std::function<std::string(const std::string&)> broadcast;
  // Called with context.sonde just before the file is written (the load over the run).
  std::function<void(nlohmann::json& context)> finish_context;
  // Where the benchmarks measured so far are kept while the run goes on: rewritten whole after a
  // benchmark, at most every `unfinished_interval` seconds; removed once `out` is written. What an
  // interrupted run leaves for one that resumes.
  std::optional<std::filesystem::path> unfinished;
  double unfinished_interval = 2.0;
  // What an interrupted run of the same benchmarks left (an unfinished file: Google Benchmark's
  // context and the entries measured, with their params). Its benchmarks are not run again, and
  // their entries come first in the result. Only the reporting process needs it: under MPI the
  // others take what to leave out from it through `broadcast`.
  std::optional<nlohmann::json> resumed;
  std::string resumed_from;  // its path, for the context
  // The run's context (context.sonde of the result, less the noise known only at the end):
  // written into the unfinished file too, so that `sonde fit --unfinished` can read it alone.
  nlohmann::json run_context;
  // What identifies the plan (the suite's plan and the sizing): written into the unfinished file,
  // so that a run made under another plan keeps nothing of it.
  nlohmann::json plan;
};

// The unfinished file for a result file: "mpi-collectives.json" ->
// "mpi-collectives.unfinished.json".
std::filesystem::path unfinished_path(const std::filesystem::path& out);

// What a run that resumes keeps of an unfinished file.
struct Unfinished {
  std::optional<nlohmann::json> kept;  // the file, less what is dropped; none: nothing to keep
  // Benchmarks left out, to be measured again: not registered now, failed in a repetition, or
  // without the aggregates of their repetitions.
  std::size_t dropped = 0;
  std::string ignored;  // why nothing of an existing file was kept ("" where none was ignored)
};

// Reads the unfinished file at `path` for a run under `plan` (OutputOptions::plan). A file that
// does not parse, or was made under another plan, is ignored and says why: it is a cache, never
// a reason to stop.
Unfinished read_unfinished(const std::filesystem::path& path, const ParamRegistry& registry,
                           const nlohmann::json& plan);

struct RunOutcome {
  std::size_t benchmarks = 0;  // benchmark instances run
  std::size_t failed = 0;      // of which reported an error
};

RunOutcome run_benchmarks(const ParamRegistry& registry, const nlohmann::json& context,
                          const OutputOptions& options);

// ---- the pieces of the re-measurement ----

// A Google Benchmark filter that selects exactly the benchmark instances with these full names
// (the "run_name" of their entries, "chase/ws:4096/min_time:0.030/repeats:5/manual_time"):
// "^(a|b)$" with the extended regex's special characters escaped. Empty for no names.
std::string exact_benchmark_filter(const std::vector<std::string>& run_names);

struct NoisyBenchmark {
  std::string run_name;
  double cv = 0;       // of its repetitions in the first pass
  double seconds = 0;  // its wall time in the first pass
};

// The noisy benchmarks to measure again, in order of decreasing cv: taken until the next one's
// first-pass wall time would bring theirs to more than `budget_seconds`, or the filter of their
// names to more than `max_filter_chars`; a pass measuring them again takes about that budget.
std::vector<std::string> select_for_remeasure(std::vector<NoisyBenchmark> noisy,
                                              double budget_seconds,
                                              std::size_t max_filter_chars = 32768);

struct NoiseChoice {
  std::size_t kept_attempt = 0;  // 0: the first pass
  bool noisy = false;            // no attempt within the threshold
};

// The attempt to keep, given each attempt's cv in order (the first pass first; nullopt: the
// attempt failed or gave no cv): the first one at or below `threshold`, else the least spread.
NoiseChoice choose_attempt(const std::vector<std::optional<double>>& attempts_cv, double threshold);

}  // namespace sonde::microbench
