#include "microbench/compute/compute_suite.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/result_format.hpp"
#include "core/statistics.hpp"
#include "microbench/compute/compute_kernels.hpp"
#include "microbench/compute/shared_ports.hpp"
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
constexpr const char* kChainBesideL1 =
    "a chain through one slot beside a triad in L1: no access pattern over the memory levels to "
    "derive counts from";

}  // namespace

std::vector<std::string> compute_part_names() {
  return {result_format::part::peak, result_format::part::kernels,
          result_format::part::shared_ports};
}

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
  if (selected(result_format::part::shared_ports)) {
    // Each iteration runs the chain alone, the triad alone and the two together back to back, and
    // each is set against the triad alone of the same iteration: the L1's state on these guests
    // moves by up to twice from one second to the next, more than the effect measured (at most
    // 2^(1/p) where the parts are equal), and neighbours a fraction of a millisecond apart meet the
    // same state. The time of an iteration is that of the two together.
    for (const unsigned width : kSharedPortsWidths) {
      const std::string name = fmt::format("compute.shared_ports/width:{}", width);
      auto run = [width, clock](benchmark::State& state) {
        SharedPortsArrays arrays;
        for (unsigned j = 0; j < kSharedPortsArrayDoubles; ++j) {
          arrays.b()[j] = 1.0 + j;
          arrays.c()[j] = 2.0 * j;
        }
        using Clock = std::chrono::steady_clock;
        std::vector<double> chain, stream, both;
        double result = 0;
        for (auto _ : state) {
          const auto t0 = Clock::now();
          result += run_shared_ports(SharedPortsRole::chain, width, kStepsPerIteration, arrays);
          const auto t1 = Clock::now();
          result += run_shared_ports(SharedPortsRole::stream, width, kStepsPerIteration, arrays);
          const auto t2 = Clock::now();
          result += run_shared_ports(SharedPortsRole::both, width, kStepsPerIteration, arrays);
          const auto t3 = Clock::now();
          benchmark::DoNotOptimize(result);
          chain.push_back(std::chrono::duration<double>(t1 - t0).count());
          stream.push_back(std::chrono::duration<double>(t2 - t1).count());
          both.push_back(std::chrono::duration<double>(t3 - t2).count());
          state.SetIterationTime(both.back());
        }
        if (!std::isfinite(result) || stream.empty()) {
          state.SkipWithError("the kernel computed a wrong result");
          return;
        }
        std::vector<double> chain_ratio, both_ratio;
        for (std::size_t i = 0; i < stream.size(); ++i) {
          chain_ratio.push_back(chain[i] / stream[i]);
          both_ratio.push_back(both[i] / stream[i]);
        }
        const double steps = static_cast<double>(kStepsPerIteration);
        add_time_per(state, clock, "operation", steps);
        state.counters[result_format::counter::chain_over_stream] = median(chain_ratio);
        state.counters[result_format::counter::both_over_stream] = median(both_ratio);
        state.counters["chain_seconds_per_step"] = median(chain) / steps;
        state.counters["stream_seconds_per_step"] = median(stream) / steps;
      };
      register_benchmark(
          registry, name, run,
          {{param::suite, "compute"},
           {param::part, result_format::part::shared_ports},
           {param::kernel, "shared_ports"},
           {param::width_doubles, width},
           {"step",
            fmt::format("y[j] = y[j] + s * b[j] + t * c[j] over {} doubles in L1 ({} B loaded, {} "
                        "B stored), b and c walking; both: y staying put for rows of {} steps (a "
                        "chain through memory per vector); stream: y walking (no chain); chain: as "
                        "both, {} doubles wide",
                        width, 24 * width, 8 * width, kSharedPortsRowSteps,
                        kSharedPortsChainDoubles)},
           {"time",
            "both; the counters chain_over_stream and both_over_stream: medians over the "
            "iterations of each part's time over the stream's of the same iteration"},
           {param::threads, 1},
           {"cores", {0}},
           {"counts", count_sources(std::nullopt, kChainBesideL1)}},
          plan.repetitions, plan.min_time_seconds)
          ->UseManualTime();
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
