// The frame of every sonde benchmark program: Google Benchmark's flags, the suite's options, the
// run context, --list-parts, --out (atomic) and --progress. A program supplies its suite.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "microbench/bench_output.hpp"
#include "microbench/clock.hpp"
#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

struct SuiteParts {
  std::vector<std::string> parts;    // selected and runnable here
  std::vector<std::string> skipped;  // "part: reason"
};

struct SuiteProgram {
  std::string program;      // "sonde-bench-overhead"
  std::string suite;        // "overhead": the context's suite name
  std::string description;  // one line for --help
  std::vector<std::string> headline_counters;
  std::function<void(CLI::App&)> add_options;
  const CommonOptions* common = nullptr;  // bound by add_options: --papi-event and the like
  bool quiet = false;  // runs the benchmarks but reports nothing (MPI ranks other than 0)
  bool bind_to_first_core = true;  // false where a launcher places the process (MPI)
  // What the run context adds, after the plan (the MPI library, the hosts).
  std::function<void(nlohmann::json&)> add_context;
  // Where several processes run the benchmarks together (MPI ranks): given the filter of the next
  // re-measuring pass on the process that reports ("" on the others), returns the one every
  // process runs ("": no further pass). See OutputOptions::agree.
  std::function<std::string(const std::string&)> agree;
  // The reporting process's text on every process (under MPI, a broadcast from rank 0): what a
  // resumed run leaves out. See OutputOptions::broadcast.
  std::function<std::string(const std::string&)> broadcast;
  // Checks the options against the machine (usage Errors) and says which parts run.
  // The topology is hwloc's with the caches the run's sizing sized for (sized_topology).
  std::function<SuiteParts(const Topology&, const Sizing&)> plan;
  // Registers the benchmarks of the planned parts; returns what the context should say of the plan.
  std::function<nlohmann::json(const Topology&, const Sizing&, const std::optional<CoreClock>&,
                               ParamRegistry&)>
      register_benchmarks;
};

int run_suite_program(const SuiteProgram& suite, int argc, char** argv);

}  // namespace sonde::microbench
