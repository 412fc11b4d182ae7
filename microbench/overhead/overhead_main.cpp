// sonde-bench-overhead: process, pipe and synchronization overheads (Xu and Hwang (1995), Tables 2
// and 3).
#include "microbench/overhead/overhead_suite.hpp"
#include "microbench/suite_program.hpp"

int main(int argc, char** argv) {
  using namespace sonde::microbench;
  CommonOptions options;
  OverheadSuitePlan plan;
  SuiteProgram suite;
  suite.program = "sonde-bench-overhead";
  suite.suite = "overhead";
  suite.description =
      "sonde overhead suite: process and thread creation, context switch, pipe latency and "
      "bandwidth, locks, barriers and atomic updates (Xu and Hwang (1995), Tables 2 and 3)";
  suite.headline_counters = {"seconds_per_switch", "seconds_per_message", "seconds_per_operation",
                             "bytes_per_second"};
  suite.add_options = [&](CLI::App& app) { add_common_options(app, options); };
  suite.plan = [&](const Topology& topology, const Sizing& sizing) {
    plan = plan_overhead_suite(options, topology, sizing);
    return SuiteParts{plan.parts, plan.skipped_parts};
  };
  suite.register_benchmarks = [&](const Topology& topology, const Sizing&,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry) {
    register_overhead_suite(plan, topology, clock, registry);
    return to_json(plan);
  };
  suite.common = &options;
  return run_suite_program(suite, argc, argv);
}
