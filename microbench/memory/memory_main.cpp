// sonde-bench-memory: the memory-hierarchy suite as a program of its own. Google Benchmark's
// --benchmark_* flags work as usual; sonde's options select sizes, threads and parts.
#include <fmt/format.h>

#include "core/units.hpp"
#include "microbench/memory/memory_suite.hpp"
#include "microbench/suite_program.hpp"

int main(int argc, char** argv) {
  using namespace sonde::microbench;
  MemorySuiteOptions options;
  std::optional<MemorySuitePlan> plan;
  SuiteProgram suite;
  suite.program = "sonde-bench-memory";
  suite.suite = "memory";
  suite.description =
      "sonde memory-hierarchy suite: pointer-chase latency, streaming bandwidth and stride sweeps "
      "over working sets from the detected caches";
  suite.headline_counters = {"seconds_per_load", "bytes_per_second", "seconds_per_access"};
  suite.add_options = [&](CLI::App& app) { add_memory_options(app, options); };
  suite.plan = [&](const Topology& topology, const Sizing& sizing) {
    plan = plan_memory_suite(options, topology, sizing);
    return SuiteParts{plan->parts, plan->skipped_parts};
  };
  suite.register_benchmarks = [&](const Topology& topology, const Sizing&,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry) {
    register_memory_suite(*plan, topology, clock, registry);
    return to_json(*plan);
  };
  suite.common = &options.common;
  return run_suite_program(suite, argc, argv);
}
