// sonde-bench-contention: Amato et al.'s (1999) contention and coherence experiments on this
// machine.
#include "microbench/contention/contention_suite.hpp"
#include "microbench/suite_program.hpp"

int main(int argc, char** argv) {
  using namespace sonde::microbench;
  CommonOptions options;
  ContentionSuitePlan plan;
  SuiteProgram suite;
  suite.program = "sonde-bench-contention";
  suite.suite = "contention";
  suite.description =
      "sonde contention suite: Amato et al.'s (1999) px.sy.<level>.{L,S}{E,C} experiments, all "
      "threads on "
      "one "
      "word, false sharing, and loads of lines clean, shared or dirty in another core's cache";
  suite.headline_counters = {"seconds_per_access", "seconds_per_operation", "seconds_per_load"};
  suite.add_options = [&](CLI::App& app) { add_common_options(app, options); };
  suite.plan = [&](const Topology& topology, const Sizing& sizing) {
    plan = plan_contention_suite(options, topology, sizing);
    return SuiteParts{plan.parts, plan.skipped_parts};
  };
  suite.register_benchmarks = [&](const Topology& topology, const Sizing&,
                                  const std::optional<CoreClock>& clock, ParamRegistry& registry) {
    register_contention_suite(plan, topology, clock, registry);
    return to_json(plan);
  };
  suite.common = &options;
  return run_suite_program(suite, argc, argv);
}
