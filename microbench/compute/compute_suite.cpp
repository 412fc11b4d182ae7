#include "microbench/compute/compute_suite.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <numeric>

#include "core/result_format.hpp"
#include "microbench/compute/compute_kernels.hpp"
#include "microbench/hardware_counters.hpp"
#include "microbench/thread_team.hpp"

namespace sonde::microbench {

namespace param = result_format::param;  // the keys readers rely on
namespace {

using benchmark::Counter;

// Rounds of the peak kernel per call: about 0.1 to 1 ms, long against starting the team.
constexpr std::uint64_t kPeakIterationsPerCall = 200000;
constexpr std::uint64_t kStepsPerIteration = 10000;
constexpr const char* kRegisterOnly =
    "a register-only kernel: it has no access pattern over memory to derive counts from";

}  // namespace

std::vector<std::string> compute_part_names() { return {"peak", "kernels"}; }

ComputeSuitePlan plan_compute_suite(const CommonOptions& options, const Topology& topology,
                                    const Sizing& sizing) {
  ComputeSuitePlan plan;
  plan.repetitions = planned_repetitions(options, sizing);
  plan.min_time_seconds = planned_min_time(options, sizing, 0.05, 0.002);
  plan.thread_counts = {1};
  if (topology.cores() > 1) plan.thread_counts.push_back(topology.cores());
  for (const FmaUnit& unit : available_fma_units()) plan.units.emplace_back(unit.name);
  plan.parts = select_parts(options.parts, compute_part_names());
  return plan;
}

void register_compute_suite(const ComputeSuitePlan& plan, const Topology& topology,
                            const std::optional<CoreClock>& clock, ParamRegistry& registry) {
  const auto selected = [&](const char* part) { return has_part(plan.parts, part); };
  if (selected("peak")) {
    for (const FmaUnit& unit : available_fma_units()) {
      for (unsigned threads : plan.thread_counts) {
        const std::vector<unsigned> cores = first_cores(threads);
        const double flops_per_call = static_cast<double>(kPeakIterationsPerCall) *
                                      kPeakAccumulators * unit.vector_doubles * 2;
        const std::string name = fmt::format("compute.peak.{}/threads:{}", unit.name, threads);
        auto run = [&topology, unit, cores, threads, flops_per_call,
                    clock](benchmark::State& state) {
          ThreadTeam team(topology, cores);
          std::vector<MemberResult> results(threads);
          const auto work = [&](unsigned member) {
            results[member].value = run_peak_kernel(unit, kPeakIterationsPerCall);
          };
          // The warm-up matters here too: the wide units of some CPUs start at a lower clock.
          team.run_benchmark_loop(state, work);
          for (const MemberResult& result : results) {
            if (!std::isfinite(result.value) || result.value <= 0) {
              state.SkipWithError("the peak kernel computed a wrong result");
              return;
            }
          }
          state.counters["flops_per_second"] =
              Counter(flops_per_call * threads, Counter::kIsIterationInvariantRate);
          record_counts(state, team.counted(), "flop", threads * flops_per_call, std::nullopt);
          if (clock) {
            state.counters["flops_per_cycle_per_core"] =
                Counter(flops_per_call / clock->hertz, Counter::kIsIterationInvariantRate);
          }
        };
        register_benchmark(registry, name, run,
                           {{param::suite, "compute"},
                            {param::part, "peak"},
                            {param::kernel, "peak_fma"},
                            {param::unit, unit.name},
                            {"vector_doubles", unit.vector_doubles},
                            {"fused", unit.fused},
                            {"accumulators", kPeakAccumulators},
                            {"flops_per_instruction", unit.vector_doubles * 2},
                            {param::threads, threads},
                            {"cores", cores},
                            {"counts", count_sources(std::nullopt, kRegisterOnly)}},
                           plan.repetitions, plan.min_time_seconds)
            ->UseManualTime();
      }
    }
  }
  if (selected("kernels")) {
    for (const OperationInfo& info : operations()) {
      for (const bool latency : {true, false}) {
        const std::string mode = latency ? "latency" : "throughput";
        const std::string name = fmt::format("compute.kernel.{}/{}", info.name, mode);
        const double operations_per_iteration =
            static_cast<double>(kStepsPerIteration) * (latency ? 1 : kThroughputChains);
        auto run = [operation = info.operation, latency, operations_per_iteration,
                    clock](benchmark::State& state) {
          double result = 0;
          ScopedCounting counting;
          for (auto _ : state) {
            result = latency ? run_latency_chain(operation, kStepsPerIteration)
                             : run_throughput_chains(operation, kStepsPerIteration);
            benchmark::DoNotOptimize(result);
          }
          const EventTotals& events = counting.stop();
          if (!std::isfinite(result)) {
            state.SkipWithError("the chain left the finite numbers");
            return;
          }
          add_time_per(state, clock, "operation", operations_per_iteration);
          record_counts(state, events, "operation", operations_per_iteration, std::nullopt);
        };
        register_benchmark(registry, name, run,
                           {{param::suite, "compute"},
                            {param::part, "kernels"},
                            {param::kernel, "operation"},
                            {param::operation, info.name},
                            {param::mode, mode},
                            {"chain", latency ? info.latency_chain : info.throughput_chain},
                            {"independent_chains", latency ? 1 : kThroughputChains},
                            {param::counted_flops, info.counted_flops},
                            {param::threads, 1},
                            {"cores", {0}},
                            {"counts", count_sources(std::nullopt, kRegisterOnly)}},
                           plan.repetitions, plan.min_time_seconds)
            ->UseRealTime();
      }
    }
  }
}

nlohmann::json to_json(const ComputeSuitePlan& plan) {
  return {{"parts", plan.parts},
          {"thread_counts", plan.thread_counts},
          {"fma_units", plan.units},
          {"repetitions", plan.repetitions},
          {"min_time_seconds", plan.min_time_seconds}};
}

}  // namespace sonde::microbench
