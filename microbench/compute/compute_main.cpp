// sonde-bench-compute: peak floating-point rate and the kernel library of per-operation costs.
#include "microbench/compute/compute_suite.hpp"
#include "microbench/suite_program.hpp"

int main(int argc, char** argv) {
  using namespace sonde::microbench;
  CommonOptions options;
  ComputeSuitePlan plan;
  SuiteProgram suite;
  suite.program = "sonde-bench-compute";
  suite.suite = "compute";
  suite.description =
      "sonde compute suite: peak rate with each fused multiply-add unit, and the latency and "
      "throughput of single operations (Fahringer and Pozgaj's (2000) kernel library, Xu and "
      "Hwang's (1995) flop rules)";
  suite.headline_counters = {"flops_per_second", "seconds_per_operation"};
  suite.add_options = [&](CLI::App& app) { add_common_options(app, options); };
  suite.plan = [&](const Topology& topology, const Sizing& sizing) {
    plan = plan_compute_suite(options, topology, sizing);
    return SuiteParts{plan.parts, {}};
  };
  suite.register_benchmarks = [&](const Topology& topology, const Sizing&,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry) {
    register_compute_suite(plan, topology, clock, registry);
    return to_json(plan);
  };
  suite.common = &options;
  return run_suite_program(suite, argc, argv);
}
