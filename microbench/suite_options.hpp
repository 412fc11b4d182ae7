// The suites' command lines: the options every benchmark program shares (quick mode, repetitions,
// time per repetition, parts), the memory and MPI suites' own, and a program's parsing.
#pragma once

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <functional>
#include <optional>

#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"

// CLI11 is heavy to compile (11 s a file at -O3, 9 s under the sanitizers): CLI::App is declared
// here for the suites' headers, and suite_options.cpp is the one file of the suites that includes
// CLI11: every suite's options are added and every program's command line parsed there.
namespace CLI {
class App;
}  // namespace CLI

namespace sonde::microbench {

struct CommonOptions {
  bool quick = false;                    // few iterations and repetitions: for tests
  int repetitions = 0;                   // 0: the suite's default (5; 2 in quick mode)
  double min_time_seconds = 0;           // 0: the suite's default
  std::vector<std::string> parts;        // empty: every part
  std::vector<std::string> papi_events;  // "KIND=EVENT": the PAPI event for a count kind
  // The coefficient of variation of a benchmark's repetitions above which it is measured again
  // (0: never), and how many times at most.
  double noise_cv = 0.05;
  int remeasure = 2;
  std::string sizing_file;  // the run's sizing (sizing.hpp); empty: hwloc's, clamped to memory

  int repetitions_or_default() const { return repetitions > 0 ? repetitions : (quick ? 2 : 5); }
  double min_time_or(double normal, double quick_mode) const {
    return min_time_seconds > 0 ? min_time_seconds : (quick ? quick_mode : normal);
  }
};

void add_common_options(CLI::App& app, CommonOptions& options);

struct MemorySuiteOptions;  // memory/memory_suite.hpp
// The memory suite's options besides the common ones (the benchmark program's and the tests').
void add_memory_options(CLI::App& app, MemorySuiteOptions& options);
// The MPI suite's: the ping-pong's message sizes and the collectives' besides the plan's.
void add_mpi_options(CLI::App& app, CommonOptions& options, std::vector<std::string>& message_sizes,
                     std::vector<std::string>& collective_sizes);

// What every suite program's command line holds besides its suite's options.
struct ProgramFlags {
  std::string out;  // the result file
  bool progress = false;
  bool list_parts = false;
  bool resume = false;
};
// Parses a suite program's command line into `flags` and what `add_options` binds. Returns the
// exit code where the program ends now (--help, --version, a usage error, said on the way).
std::optional<int> parse_program_command_line(const std::string& description,
                                              const std::string& program,
                                              const std::function<void(CLI::App&)>& add_options,
                                              int argc, char** argv, ProgramFlags& flags);

// The common options as arguments again, to hand them to a benchmark program.
std::vector<std::string> common_option_arguments(const CommonOptions& options);

bool has_part(const std::vector<std::string>& parts, const std::string& part);

// The parts to run: all of `available` when none was asked for; a usage Error for an unknown one.
std::vector<std::string> select_parts(const std::vector<std::string>& asked,
                                      const std::vector<std::string>& available);

// Repetitions with their median and spread (mean, median, stddev, cv, min, max), as every sonde
// benchmark is configured.
benchmark::internal::Benchmark* with_statistics(benchmark::internal::Benchmark* b, int repetitions,
                                                double min_time_seconds);

// Registers `run` with Google Benchmark under `name`, configured as every sonde benchmark is
// (with_statistics), and its parameters with `registry`; returns it for the timing choice
// (UseManualTime, UseRealTime).
benchmark::internal::Benchmark* register_benchmark(ParamRegistry& registry, const std::string& name,
                                                   std::function<void(benchmark::State&)> run,
                                                   nlohmann::json params, int repetitions,
                                                   double min_time_seconds);

// The counters seconds_per_<what> and, where the clock is known, cycles_per_<what>, for `count`
// of them in each iteration.
void add_time_per(benchmark::State& state, const std::optional<CoreClock>& clock,
                  const std::string& what, double count);

}  // namespace sonde::microbench
