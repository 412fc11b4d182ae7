#include "microbench/suite_options.hpp"
#include <CLI/CLI.hpp>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/program.hpp"
#include "core/version.hpp"
#include "microbench/memory/memory_suite.hpp"

namespace sonde::microbench {
namespace {

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double maximum(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

}  // namespace

void add_common_options(CLI::App& app, CommonOptions& options) {
  app.add_flag("--quick", options.quick, "Tiny sizes and few repetitions (for tests)");
  app.add_option("--repetitions", options.repetitions,
                 "Repetitions of each benchmark (default 5; 2 with --quick)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--min-time", options.min_time_seconds,
                 "Minimum seconds per repetition (default: the suite's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--part", options.parts, "Run only these parts (see --list-parts)")
      ->delimiter(',');
  app.add_option("--papi-event", options.papi_events,
                 "Count KIND (loads, stores, l1_misses, l2_misses, llc_misses, l1_writebacks, "
                 "llc_writebacks) with this PAPI event, e.g. llc_misses=perf::LLC-LOAD-MISSES (no "
                 "effect in a build without PAPI)")
      ->type_name("KIND=EVENT");
  app.add_option("--noise-cv", options.noise_cv,
                 "Coefficient of variation of a benchmark's repetitions above which it is "
                 "measured again (default 0.05; 0: never)")
      ->check(CLI::NonNegativeNumber);
  app.add_option(
         "--sizing", options.sizing_file,
         "Sizes and effort decided by `sonde characterize` (a sizing.json of a run folder); "
         "default: hwloc's caches, clamped to the memory this process may use")
      ->check(CLI::ExistingFile);
  app.add_option("--remeasure", options.remeasure,
                 "How many times at most a noisy benchmark is measured again (default 2)")
      ->check(CLI::NonNegativeNumber);
}

void add_memory_options(CLI::App& app, MemorySuiteOptions& options) {
  add_common_options(app, options.common);
  app.add_option("--min-working-set", options.min_working_set,
                 "Smallest working set, e.g. 4KiB (at least one cache line)")
      ->capture_default_str();
  app.add_option(
      "--max-working-set", options.max_working_set,
      "Largest working set, e.g. 512MiB (default: 8 times the last level as sized, within "
      "a quarter of the memory this process may use)");
  app.add_option("--sizes", options.sizes,
                 "Measure exactly these working sets instead of the sweep, e.g. 16KiB,256MiB")
      ->delimiter(',');
  app.add_option("--threads", options.threads,
                 "Thread counts for the bandwidth sweep, e.g. 1,2 or all (default: 1 and all)")
      ->delimiter(',');
  app.add_option("--seed", options.seed, "Seed of the random chase permutations")
      ->capture_default_str();
}

void add_mpi_options(CLI::App& app, CommonOptions& options, std::vector<std::string>& message_sizes,
                     std::vector<std::string>& collective_sizes) {
  add_common_options(app, options);
  app.add_option("--message-bytes", message_sizes,
                 "Ping-pong message sizes instead of 0 B to 16 MiB (e.g. 8,2000000,4MiB)")
      ->delimiter(',');
  app.add_option("--collective-bytes", collective_sizes,
                 "Collective message sizes to measure besides the plan's (e.g. 32KiB,24576)")
      ->delimiter(',');
}

std::optional<int> parse_program_command_line(const std::string& description,
                                              const std::string& program,
                                              const std::function<void(CLI::App&)>& add_options,
                                              int argc, char** argv, ProgramFlags& flags) {
  CLI::App app{description, program};
  app.footer(
      "Google Benchmark's --benchmark_* flags (--benchmark_filter=REGEX and the others) apply "
      "too.");
  app.set_version_flag("--version", sonde::version);
  add_options(app);
  app.add_option("--out", flags.out,
                 "Write the results (Google Benchmark JSON) to this file, atomically");
  app.add_flag("--progress", flags.progress,
               "One line per benchmark on stderr instead of the table");
  app.add_flag("--list-parts", flags.list_parts, "Print the parts this machine would run and exit");
  app.add_flag("--resume", flags.resume,
               "Keep what an interrupted run with the same --out measured (its unfinished file, "
               "<out>.unfinished.json) and measure only the rest");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  return std::nullopt;
}

std::vector<std::string> common_option_arguments(const CommonOptions& options) {
  std::vector<std::string> args;
  if (options.quick) args.push_back("--quick");
  if (options.repetitions > 0) args.push_back(fmt::format("--repetitions={}", options.repetitions));
  if (options.min_time_seconds > 0) {
    args.push_back(fmt::format("--min-time={}", options.min_time_seconds));
  }
  for (const std::string& event : options.papi_events) args.push_back("--papi-event=" + event);
  // Only where they differ from the defaults, so that earlier arguments stay as they were.
  if (options.noise_cv != CommonOptions{}.noise_cv) {
    args.push_back(fmt::format("--noise-cv={}", options.noise_cv));
  }
  if (!options.sizing_file.empty()) args.push_back("--sizing=" + options.sizing_file);
  if (options.remeasure != CommonOptions{}.remeasure) {
    args.push_back(fmt::format("--remeasure={}", options.remeasure));
  }
  return args;
}

bool has_part(const std::vector<std::string>& parts, const std::string& part) {
  return std::find(parts.begin(), parts.end(), part) != parts.end();
}

std::vector<std::string> select_parts(const std::vector<std::string>& asked,
                                      const std::vector<std::string>& available) {
  for (const std::string& part : asked) {
    if (std::find(available.begin(), available.end(), part) == available.end()) {
      throw usage_error("--part", fmt::format("unknown part '{}'; the parts are {}", part,
                                              fmt::join(available, ", ")));
    }
  }
  if (asked.empty()) return available;
  std::vector<std::string> selected;
  for (const std::string& part : available) {
    if (std::find(asked.begin(), asked.end(), part) != asked.end()) selected.push_back(part);
  }
  return selected;
}

benchmark::internal::Benchmark* with_statistics(benchmark::internal::Benchmark* b, int repetitions,
                                                double min_time_seconds) {
  return b->Repetitions(repetitions)
      ->MinTime(min_time_seconds)
      ->ComputeStatistics("min", minimum)
      ->ComputeStatistics("max", maximum)
      ->Unit(benchmark::kMicrosecond);
}

benchmark::internal::Benchmark* register_benchmark(ParamRegistry& registry, const std::string& name,
                                                   std::function<void(benchmark::State&)> run,
                                                   nlohmann::json params, int repetitions,
                                                   double min_time_seconds) {
  registry.add(name, std::move(params));
  return with_statistics(benchmark::RegisterBenchmark(name.c_str(), std::move(run)), repetitions,
                         min_time_seconds);
}

void add_time_per(benchmark::State& state, const std::optional<CoreClock>& clock,
                  const std::string& what, double count) {
  const auto flags = benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert;
  state.counters["seconds_per_" + what] = benchmark::Counter(count, flags);
  if (clock) state.counters["cycles_per_" + what] = benchmark::Counter(count / clock->hertz, flags);
}

}  // namespace sonde::microbench
